#!/usr/bin/env node
// Entry shim in plain JavaScript: on a Node too old to run TypeScript sources it says so clearly
// instead of failing with a syntax error.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `rlf needs Node.js 22.18 or newer (it runs its TypeScript sources directly); this is ${process.version}.\n`,
  );
  process.exit(1);
}
const { runCli } = await import("../src/main.ts");
runCli(process.argv.slice(2));
