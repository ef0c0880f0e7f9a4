// rollout.proto at run time, loaded once through @rlfactory/proto (with grpc.health.v1 for reflection).
import type { ServiceClientConstructor } from "@grpc/grpc-js";
import type { PackageDefinition } from "@grpc/proto-loader";
import { loadServiceProto, PROTO_FILES } from "@rlfactory/proto";
import type { ProtoGrpcType } from "@rlfactory/proto/grpc/rollout";

export const ROLLOUT_SERVICE = "rlfactory.v1.RolloutService";
/** Largest message either side accepts by default: a batch of long trajectories runs to many MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export function loadRolloutProto(): { definition: PackageDefinition; grpc: ProtoGrpcType } {
  return loadServiceProto<ProtoGrpcType>(PROTO_FILES.rollout);
}

export function rolloutClientConstructor(): ServiceClientConstructor {
  return loadServiceProto(PROTO_FILES.rollout).clientConstructor("RolloutService");
}
