// rollout.proto at run time, loaded once through @rlfactory/proto (with grpc.health.v1 for reflection).
import type { PackageDefinition } from "@grpc/proto-loader";
import { loadServiceProto, PROTO_FILES } from "@rlfactory/proto";
import type { ProtoGrpcType } from "@rlfactory/proto/grpc/rollout";

export const ROLLOUT_SERVICE = "rlfactory.v1.RolloutService";

export function loadRolloutProto(): { definition: PackageDefinition; grpc: ProtoGrpcType } {
  return loadServiceProto<ProtoGrpcType>(PROTO_FILES.rollout);
}
