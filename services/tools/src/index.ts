export { createCalculatorServer } from "./calculator/index.ts";
export { createCodeServer } from "./code/index.ts";
export { createImageServer, DEFAULT_IMAGE_LIMITS, type ImageLimits } from "./image/index.ts";
export { ENGLISH_STOP_WORDS } from "./search/english-analyzer.ts";
export {
  analyze,
  buildHotpotqaCorpus,
  createSearchServer,
  DEFAULT_BM25,
  openBm25Retriever,
} from "./search/index.ts";
export { createSqlServer } from "./sql/index.ts";
export type { BundledToolServer, ToolOptionValues, ToolServerEntry } from "./tool-server-entry.ts";
export {
  BUNDLED_TOOL_SERVER_NAMES,
  type BundledToolServerName,
  bundledToolServer,
  type OnDemandToolServerName,
  onDemandToolServers,
  TOOL_SERVER_NAMES,
  toolServers,
} from "./tool-servers.ts";
