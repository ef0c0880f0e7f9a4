import type { Options } from "@grpc/proto-loader";

/**
 * Loader options shared by the runtime loader (`proto.ts`) and the type generator
 * (`scripts/gen-proto-types.ts`), so generated types always describe the objects grpc-js hands us.
 */
export const PROTO_LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: String,
  bytes: Buffer,
  defaults: true,
  arrays: true,
  oneofs: true,
} satisfies Options;
