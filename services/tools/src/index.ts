import type { ToolServer } from "@rlfactory/toolkit";
import { createCalculatorServer } from "./calculator/calculator-server.ts";

export { createCalculatorServer } from "./calculator/calculator-server.ts";

/** The bundled tool servers by name: `toolServers[name]()` builds one, ready for `serveFromArgs`. */
export const toolServers: Record<string, () => ToolServer> = {
  calculator: () => createCalculatorServer(),
};
