#!/usr/bin/env node
// Node.js preflight, in plain CommonJS so that any Node can run it: on a Node older than the root
// package.json's `engines.node` it prints one line saying which Node is needed and how to get it, and
// exits 1. `npm test` runs it first; `rlf` (and so `npm start`) loads it before any TypeScript source.
const { join } = require("node:path");

const engines = require(join(__dirname, "../../../package.json")).engines.node;
const wanted = /^>=\s*(\d+)\.(\d+)/.exec(engines);
if (!wanted) throw new Error(`package.json engines.node should read ">=MAJOR.MINOR" (got ${engines})`);
const [major, minor] = process.versions.node.split(".").map(Number);
const needMajor = Number(wanted[1]);
const needMinor = Number(wanted[2]);
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  process.stderr.write(
    `rlfactory needs Node.js >= ${needMajor}.${needMinor} (found ${process.version}): install Node ${needMajor} ` +
      `(\`nvm install ${needMajor}\`, or \`npm install -g node@${needMajor}\`) and run this again.\n`,
  );
  process.exit(1);
}
