// Loads one .proto of proto/rlfactory/v1 at run time with the options the type generator used, plus
// grpc.health.v1 so that the reflection service describes health too. A client needs only the file's
// own services: grpc.health.v1 (and the grpc-health-check package) is loaded when a server first asks
// for the definition, so `rlf tools list` does not pay for it.
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type GrpcObject, loadPackageDefinition, type ServiceClientConstructor } from "@grpc/grpc-js";
import { loadSync, type PackageDefinition } from "@grpc/proto-loader";
import { fixMapEntryNames } from "./descriptor-fix.ts";
import { PROTO_LOADER_OPTIONS } from "./loader-options.ts";

const require = createRequire(import.meta.url);

/** The folder that holds `rlfactory/v1/*.proto` (the include root). */
export const PROTO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The proto files of the rlfactory.v1 package, by the service each defines. */
export const PROTO_FILES = {
  gateway: "rlfactory/v1/gateway.proto",
  rollout: "rlfactory/v1/rollout.proto",
  judge: "rlfactory/v1/judge.proto",
} as const;
export type ProtoFile = (typeof PROTO_FILES)[keyof typeof PROTO_FILES];

export interface LoadedServiceProto<G> {
  /** The file's definitions plus grpc.health.v1 (for a gRPC host with health and reflection). */
  definition: PackageDefinition;
  /** The file's package object, typed by its generated ProtoGrpcType. */
  grpc: G;
  /** The generated client class of one service of the file (`rlfactory.v1.<name>`). */
  clientConstructor(service: string): ServiceClientConstructor;
}

const loaded = new Map<string, LoadedServiceProto<unknown>>();

/** Loads (once per process) one proto file of rlfactory.v1. */
export function loadServiceProto<G>(file: ProtoFile): LoadedServiceProto<G> {
  let entry = loaded.get(file);
  if (entry === undefined) {
    const own = loadSync(resolve(PROTO_ROOT, file), { ...PROTO_LOADER_OPTIONS, includeDirs: [PROTO_ROOT] });
    const grpc = loadPackageDefinition(own);
    let definition: PackageDefinition | undefined;
    entry = {
      get definition(): PackageDefinition {
        if (definition === undefined) {
          const { protoPath } = require("grpc-health-check") as typeof import("grpc-health-check");
          definition = fixMapEntryNames({ ...loadSync(protoPath, PROTO_LOADER_OPTIONS), ...own });
        }
        return definition;
      },
      grpc,
      clientConstructor(service: string): ServiceClientConstructor {
        const v1 = ((grpc as GrpcObject).rlfactory as GrpcObject).v1 as GrpcObject;
        const ctor = v1[service];
        if (typeof ctor !== "function") throw new Error(`${file} defines no service rlfactory.v1.${service}`);
        return ctor as ServiceClientConstructor;
      },
    };
    loaded.set(file, entry);
  }
  return entry as LoadedServiceProto<G>;
}
