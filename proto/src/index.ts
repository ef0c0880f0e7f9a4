// @rlfactory/proto — the rlfactory.v1 protocol. Generated message types are imported by subpath:
// `@rlfactory/proto/types/<Message>` and `@rlfactory/proto/grpc/<file>` (the ProtoGrpcType of a file).
export { fixMapEntryNames, mapEntryName } from "./descriptor-fix.ts";
export {
  type LoadedServiceProto,
  loadServiceProto,
  PROTO_FILES,
  PROTO_ROOT,
  type ProtoFile,
} from "./load-service-proto.ts";
export { generatorFlags, PROTO_LOADER_OPTIONS } from "./loader-options.ts";
export { CALLER_META_KEY, UNAVAILABLE_META_KEY } from "./mcp-meta.ts";
