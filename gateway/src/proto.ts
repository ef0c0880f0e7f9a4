// Loads proto/ at run time (the same options the type generator used) and exposes typed definitions.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type GrpcObject, loadPackageDefinition, type ServiceClientConstructor } from "@grpc/grpc-js";
import { loadSync, type PackageDefinition } from "@grpc/proto-loader";
import { protoPath as healthProtoPath } from "grpc-health-check";
import { fixMapEntryNames } from "./descriptor-fix.ts";
import type { ProtoGrpcType } from "./generated/gateway.ts";
import { PROTO_LOADER_OPTIONS } from "./proto-options.ts";

export const PROTO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../proto");
export const GATEWAY_PROTO = "rlfactory/v1/gateway.proto";
export const GATEWAY_SERVICE = "rlfactory.v1.ToolGateway";

let cached: { definition: PackageDefinition; grpc: ProtoGrpcType } | undefined;

/** The gateway package definition, plus grpc.health.v1 so reflection describes health too. */
export function loadGatewayProto(): { definition: PackageDefinition; grpc: ProtoGrpcType } {
  cached ??= (() => {
    const gateway = loadSync(resolve(PROTO_ROOT, GATEWAY_PROTO), {
      ...PROTO_LOADER_OPTIONS,
      includeDirs: [PROTO_ROOT],
    });
    const health = loadSync(healthProtoPath, PROTO_LOADER_OPTIONS);
    const definition = fixMapEntryNames({ ...health, ...gateway });
    return { definition, grpc: loadPackageDefinition(gateway) as unknown as ProtoGrpcType };
  })();
  return cached;
}

export function toolGatewayClientConstructor(): ServiceClientConstructor {
  const v1 = (loadGatewayProto().grpc as unknown as GrpcObject).rlfactory as GrpcObject;
  return (v1.v1 as GrpcObject).ToolGateway as ServiceClientConstructor;
}
