// The sandbox checks of one generated tool, for real: tool_check.py in the environment host's
// bubblewrap workers. Each failure reason from a tool written to fail that way; the denials counted.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaProblem, type ToolUnderCheck, ToolValidator } from "./tool-validator.ts";

function haveBubblewrap(): boolean {
  const probe = spawnSync("bwrap", [
    ...["--unshare-all", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib"],
    ...["--symlink", "usr/lib64", "/lib64", "/usr/bin/python3", "-c", "pass"],
  ]);
  if (probe.status === 0) return true;
  const message = `tool validator: bubblewrap cannot start a sandbox here (${probe.error?.message ?? probe.stderr?.toString().trim()})`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

const BWRAP = haveBubblewrap();

const PARAMETERS = { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] };

function tool(
  body: string,
  calls: ToolUnderCheck["calls"] = [{ arguments: { city: "Rome" }, answer: "Tiber" }],
) {
  return { name: "river_of", parameters: PARAMETERS, code: body, calls };
}

describe("schemaProblem", () => {
  it("names a bad tool name, a bad schema and arguments that do not fit", () => {
    expect(schemaProblem({ name: "river-of", parameters: PARAMETERS, calls: [] })).toMatch(
      /not a Python identifier/,
    );
    expect(schemaProblem({ name: "data", parameters: PARAMETERS, calls: [] })).toMatch(
      /cannot be named data/,
    );
    expect(
      schemaProblem({
        name: "t",
        parameters: { type: "object", properties: { a: { type: "bogus" } } },
        calls: [],
      }),
    ).toMatch(/not a JSON Schema/);
    expect(schemaProblem({ name: "t", parameters: PARAMETERS, calls: [{ arguments: { city: 3 } }] })).toMatch(
      /call 1's arguments .* do not fit/,
    );
    expect(
      schemaProblem({ name: "t", parameters: PARAMETERS, calls: [{ arguments: { city: "Rome" } }] }),
    ).toBe(undefined);
  });
});

describe.skipIf(!BWRAP)("ToolValidator (real sandbox)", () => {
  let validator: ToolValidator;
  beforeAll(async () => {
    validator = await ToolValidator.start({ timeoutMs: 500, memoryMb: 256, workers: 2 });
  });
  afterAll(async () => {
    await validator?.stop();
  });

  it("passes a deterministic tool that returns its answer and imports the standard library", async () => {
    const result = await validator.check(
      tool(
        'import json, re\n\ndef river_of(city):\n    return json.dumps({"river": "Tiber" if city == "Rome" else "?"})\n',
      ),
    );
    expect(result).toEqual({
      ok: true,
      denials: { network: 0, file: 0, process: 0 },
      outputs: ['{"river": "Tiber"}'],
    });
  });

  it.each([
    ["wrong_answer", "def river_of(city):\n    return 'Arno'\n"],
    ["exception", "def river_of(city):\n    return {}['x']\n"],
    ["exception", "def river_of(city)\n    return 1\n"], // a syntax error
    ["missing_function", "def other(city):\n    return 'Tiber'\n"],
    ["timeout", "import time\n\ndef river_of(city):\n    time.sleep(60)\n"],
    ["memory", "def river_of(city):\n    return 'Tiber' + 'x' * (1 << 33)\n"],
    [
      "nondeterministic",
      "calls = [0]\n\ndef river_of(city):\n    calls[0] += 1\n    return 'Tiber' * calls[0]\n",
    ],
    [
      "process_access",
      "import subprocess\n\ndef river_of(city):\n    try:\n        subprocess.run(['true'])\n    except Exception:\n        pass\n    return 'Tiber'\n",
    ],
    [
      "file_access",
      "import os\n\ndef river_of(city):\n    try:\n        os.listdir('/')\n    except Exception:\n        pass\n    return 'Tiber'\n",
    ],
  ])("fails %s", async (reason, code) => {
    const result = await validator.check(tool(code));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toBe(reason);
  });

  it("counts denied network attempts, even when the tool swallows the error", async () => {
    const code =
      "import socket\n\ndef river_of(city):\n    for host in ('10.9.9.9', 'example.org'):\n        try:\n            socket.create_connection((host, 80), timeout=0.1)\n        except Exception:\n            pass\n    return 'Tiber'\n";
    const result = await validator.check(tool(code));
    expect(result).toMatchObject({
      ok: false,
      reason: "network_access",
      denials: { network: 2, file: 0, process: 0 },
    });
  });

  it("checks a distractor (no answer) for running and determinism only", async () => {
    const result = await validator.check(
      tool("def river_of(city):\n    return 'no rivers here'\n", [{ arguments: { city: "Rome" } }]),
    );
    expect(result.ok).toBe(true);
  });
});
