#!/usr/bin/env node
// Entry shim in plain JavaScript: the sources are TypeScript, run by Node's type stripping; a Node
// without it gets one line saying so instead of a syntax error.
if (!process.features.typescript) {
  process.stderr.write(
    `rlf-sim runs TypeScript sources and needs a Node.js that strips types (>= 22.18, the root package.json's engines; found ${process.version})\n`,
  );
  process.exit(1);
}
const { runSim } = await import("../src/main.ts");
runSim(process.argv.slice(2));
