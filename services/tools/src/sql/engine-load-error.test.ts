// The SQL engine's load failure keeps its cause and says what to run: Node's own message for an addon
// built under another Node (its first line names only the path) becomes one actionable line.
import { describe, expect, it } from "vitest";
import { engineLoadError } from "./engine-load-error.ts";

/** What Node 22 throws for a better-sqlite3 built under Node 20 (the message, verbatim). */
const NODE_ABI_MESSAGE = `The module '/home/u/rlfactory/node_modules/better-sqlite3/build/Release/better_sqlite3.node'
was compiled against a different Node.js version using
NODE_MODULE_VERSION 115. This version of Node.js requires
NODE_MODULE_VERSION 127. Please try re-compiling or re-installing
the module (for instance, using \`npm rebuild\` or \`npm install\`).`;

describe("engineLoadError", () => {
  it("names both ABI versions and what to run, without the host path", () => {
    const line = engineLoadError(new Error(NODE_ABI_MESSAGE));
    expect(line).toContain("NODE_MODULE_VERSION 115");
    expect(line).toContain(`Node ${process.version} needs 127`);
    expect(line).toContain("npm rebuild better-sqlite3");
    expect(line).not.toContain("/home/u");
    expect(line).not.toContain("\n");
  });

  it("keeps any other cause whole, on one line", () => {
    expect(engineLoadError(new Error("Cannot find module 'better-sqlite3'\nRequire stack:\n- /x/y.ts"))).toBe(
      "Cannot find module 'better-sqlite3' Require stack: - <path>",
    );
  });
});
