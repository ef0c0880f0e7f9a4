// The gateway's proto (rlfactory/v1/gateway.proto), loaded once through @rlfactory/proto.

import type { PackageDefinition } from "@grpc/proto-loader";
import type { ProtoGrpcType } from "@rlfactory/proto/grpc/gateway";
import { loadServiceProto, PROTO_FILES } from "@rlfactory/proto/load-service-proto";

export const GATEWAY_SERVICE = "rlfactory.v1.ToolGateway";

/** The gateway package definition, plus grpc.health.v1 so reflection describes health too. */
export function loadGatewayProto(): { definition: PackageDefinition; grpc: ProtoGrpcType } {
  return loadServiceProto<ProtoGrpcType>(PROTO_FILES.gateway);
}
