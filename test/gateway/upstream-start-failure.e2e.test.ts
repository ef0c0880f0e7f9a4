// A stdio tool server that fails to start (a Python server whose file is missing, say) says why on its
// stderr; the gateway shows those last lines at the default log level, in the "upstream connect failed"
// line, instead of only under LOG_LEVEL=debug.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { RLF, ROOT, stopChild, tempDir } from "@rlfactory/test-support/gateway-harness";
import { describe, expect, it } from "vitest";

const WHY = "python3: can't open file '/nonexistent/server.py': [Errno 2] No such file or directory";

describe("gateway upstream that fails to start", () => {
  it("logs the last lines of its stderr with the failure, at the default level", async () => {
    const file = join(tempDir("rlf-gw-stderr-"), "gateway.json");
    writeFileSync(
      file,
      JSON.stringify({
        grpc: { port: 0 },
        admin: { port: 0 },
        servers: {
          broken: {
            command: process.execPath,
            args: ["-e", `console.error("starting"); console.error(${JSON.stringify(WHY)}); process.exit(2)`],
          },
        },
      }),
    );
    const env = { ...process.env };
    delete env.LOG_LEVEL;
    const child = spawn(process.execPath, [RLF, "gateway", "--config", file], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stderr?.resume();
    try {
      let failure: { stderr?: string; upstream?: string } | undefined;
      for await (const line of createInterface({ input: child.stdout! })) {
        const rec = JSON.parse(line) as { msg?: string; stderr?: string; upstream?: string };
        if (rec.msg === "upstream connect failed") {
          failure = rec;
          break;
        }
      }
      expect(failure?.upstream).toBe("broken");
      expect(failure?.stderr).toBe(`starting\n${WHY}`);
    } finally {
      await stopChild(child);
    }
  }, 60_000);
});
