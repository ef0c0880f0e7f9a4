#!/usr/bin/env node
// Entry shim in plain JavaScript: on a Node too old to run TypeScript sources, check-node.cjs says
// which Node is needed (one line) instead of failing with a syntax error.
import "./check-node.cjs";

const { runCli } = await import("../src/main.ts");
runCli(process.argv.slice(2));
