// The `calculator` tool server for `rlf tool calculator`: safe arithmetic (mathjs, restricted).
import type { ToolServerEntry } from "../tool-server-entry.ts";
import { createCalculatorServer } from "./calculator-server.ts";

export { createCalculatorServer } from "./calculator-server.ts";

export const calculatorServerEntry: ToolServerEntry = {
  summary: "safe arithmetic and math functions (mathjs, restricted)",
  options: {},
  usage: "",
  create: () => createCalculatorServer(),
};
