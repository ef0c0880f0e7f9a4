import type { Options } from "@grpc/proto-loader";

/**
 * Loader options shared by the runtime loader (`load-service-proto.ts`) and the type generator
 * (`scripts/gen-proto-types.ts`, which turns them into its command-line flags), so generated types
 * always describe the objects grpc-js hands us.
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

/** The generator's flags for PROTO_LOADER_OPTIONS (proto-loader-gen-types spells them this way). */
export function generatorFlags(options: Options = PROTO_LOADER_OPTIONS): string[] {
  const flags: string[] = [];
  if (options.keepCase) flags.push("--keepCase");
  if (options.longs === String) flags.push("--longs=String");
  if (options.enums === String) flags.push("--enums=String");
  // bytes: the generator types bytes fields as Buffer by default, as `bytes: Buffer` loads them.
  if (options.defaults) flags.push("--defaults");
  if (options.arrays) flags.push("--arrays");
  if (options.oneofs) flags.push("--oneofs");
  return flags;
}
