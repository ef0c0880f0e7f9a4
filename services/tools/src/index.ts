import { createCalculatorServer } from "./calculator/calculator-server.ts";
import { codeServerEntry } from "./code/index.ts";
import { searchServerEntry } from "./search/index.ts";
import { sqlServerEntry } from "./sql/index.ts";
import type { ToolServerEntry } from "./tool-server-entry.ts";

export { createCalculatorServer } from "./calculator/calculator-server.ts";
export { createCodeServer } from "./code/index.ts";
export { ENGLISH_STOP_WORDS } from "./search/english-analyzer.ts";
export { buildHotpotqaCorpus, createSearchServer, openBm25Retriever } from "./search/index.ts";
export { createSqlServer } from "./sql/index.ts";
export type { ToolOptionValues, ToolServerEntry } from "./tool-server-entry.ts";

/** The bundled tool servers by name, for `rlf tool NAME [options] [--stdio | --http PORT]`. */
export const toolServers: Record<string, ToolServerEntry> = {
  search: searchServerEntry,
  calculator: {
    summary: "safe arithmetic and math functions (mathjs, restricted)",
    options: {},
    usage: "",
    create: () => createCalculatorServer(),
  },
  code: codeServerEntry,
  sql: sqlServerEntry,
};
