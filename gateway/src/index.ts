export type { ErrorCode } from "@rlfactory/proto/types/ErrorCode";
export type { Tool__Output as WireTool } from "@rlfactory/proto/types/Tool";
export type { ToolCall as WireToolCall } from "@rlfactory/proto/types/ToolCall";
export type { ToolResult__Output as WireToolResult } from "@rlfactory/proto/types/ToolResult";
export type { CatalogEntry, EffectivePolicy } from "./catalog.ts";
export { Catalog, gatewayToolName, NAME_SEPARATOR } from "./catalog.ts";
export type { GatewayConfig, ServerConfig, ToolPolicy } from "./config.ts";
export {
  ConfigError,
  DEFAULT_TOOL_POLICY,
  DEFAULT_UPSTREAM_POLICY,
  loadConfigFile,
  normaliseConfig,
  parseConfigText,
} from "./config.ts";
export { decodeEpisodeId, type EpisodeRef, Episodes, encodeEpisodeId } from "./episodes.ts";
export { type CallErrorCode, GatewayError, isGatewayError } from "./errors.ts";
export { type GatewayHandle, startGateway } from "./gateway.ts";
export {
  CACHE_META_KEY,
  DEADLINE_META_KEY,
  EPISODE_ARG,
  EPISODE_END_TOOL,
  EPISODE_FORK_TOOL,
  EPISODE_QUERY,
  EPISODE_SNAPSHOT_TOOL,
  EPISODE_START_TOOL,
  TRAJECTORY_META_KEY,
  TRAJECTORY_QUERY,
} from "./mcp-server.ts";
export { BREAKER_STATES, type BreakerState } from "./policies.ts";
export { GATEWAY_SERVICE, loadGatewayProto } from "./proto.ts";
export { UPSTREAM_STATES, type UpstreamState } from "./upstream.ts";
