// Loads rollout.proto at run time with the options the type generator used, plus grpc.health.v1 so the
// reflection service describes health too.
import { type GrpcObject, loadPackageDefinition, type ServiceClientConstructor } from "@grpc/grpc-js";
import { loadSync, type PackageDefinition } from "@grpc/proto-loader";
import { fixMapEntryNames, PROTO_LOADER_OPTIONS, PROTO_ROOT } from "@rlfactory/gateway";
import { protoPath as healthProtoPath } from "grpc-health-check";
import type { ProtoGrpcType } from "../generated/rollout.ts";

export const ROLLOUT_PROTO = "rlfactory/v1/rollout.proto";
export const ROLLOUT_SERVICE = "rlfactory.v1.RolloutService";
/** Largest message either side accepts by default: a batch of long trajectories runs to many MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

let cached: { definition: PackageDefinition; grpc: ProtoGrpcType } | undefined;

export function loadRolloutProto(): { definition: PackageDefinition; grpc: ProtoGrpcType } {
  cached ??= (() => {
    const rollout = loadSync(`${PROTO_ROOT}/${ROLLOUT_PROTO}`, {
      ...PROTO_LOADER_OPTIONS,
      includeDirs: [PROTO_ROOT],
    });
    const health = loadSync(healthProtoPath, PROTO_LOADER_OPTIONS);
    const definition = fixMapEntryNames({ ...health, ...rollout });
    return { definition, grpc: loadPackageDefinition(rollout) as unknown as ProtoGrpcType };
  })();
  return cached;
}

export function rolloutClientConstructor(): ServiceClientConstructor {
  const rlfactory = (loadRolloutProto().grpc as unknown as GrpcObject).rlfactory as GrpcObject;
  return (rlfactory.v1 as GrpcObject).RolloutService as ServiceClientConstructor;
}
