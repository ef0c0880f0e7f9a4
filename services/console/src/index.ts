export type { ToolRow, ToolsOverview } from "./api-types.ts";
export {
  ASSETS_DIR,
  buildConsoleApp,
  CONSOLE_PORT,
  type ConsoleOptions,
  DEFAULT_GATEWAY_ADMIN,
} from "./console-server.ts";
export { GatewayAdminClient, GatewayAdminError } from "./gateway-admin-client.ts";
export { histogramQuantile, parsePrometheusText } from "./prometheus-text.ts";
export {
  type LiveRun,
  type LiveRunListing,
  RolloutServiceClient,
  RolloutServiceError,
} from "./rollout-service-client.ts";
export { RunDirectories } from "./run-directories.ts";
export { exampleIndices, type RunReportInput, renderRunReport, writeRunReport } from "./run-report.ts";
export { toolsOverview } from "./tools-overview.ts";
