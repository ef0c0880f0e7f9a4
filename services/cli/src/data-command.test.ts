// `rlf data bfcl`: the command writes one task per BFCL entry, finds the func docs beside --in by
// default, and says what it needs when a flag is missing.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "@rlfactory/kit/command-line";
import { haveSharedData, sharedDataPath } from "@rlfactory/test-support/shared-data";
import { describe, expect, it } from "vitest";
import { runBfcl } from "./data-command.ts";
import { main } from "./main.ts";

const QUESTIONS = "bfcl/BFCL_v4_multi_turn_base.json";
const ANSWERS = "bfcl/possible_answer/BFCL_v4_multi_turn_base.json";

describe.skipIf(!haveSharedData("rlf data bfcl", QUESTIONS, ANSWERS, "bfcl/multi_turn_func_doc"))(
  "rlf data bfcl",
  () => {
    it("writes 200 tasks from multi_turn_base, func docs found beside --in, --server honoured", async () => {
      const out = join(mkdtempSync(join(tmpdir(), "rlf-data-bfcl-")), "tasks.jsonl");
      const args = ["--in", sharedDataPath(QUESTIONS), "--answers", sharedDataPath(ANSWERS), "--out", out];
      expect(await runBfcl([...args, "--server", "fs"])).toBe(0);
      const lines = readFileSync(out, "utf8").split("\n").filter(Boolean);
      expect(lines).toHaveLength(200);
      const first = JSON.parse(lines[0]!) as {
        id: string;
        environment: { server: string };
        tool_aliases: Record<string, string>;
      };
      expect(first.id).toBe("multi_turn_base_0");
      expect(first.environment.server).toBe("fs");
      expect(first.tool_aliases.cd).toBe("fs__cd");
    });
  },
);

describe("rlf data: usage errors", () => {
  it("names what is missing", async () => {
    await expect(runBfcl(["--in", "x.json"])).rejects.toThrow(
      /rlf data bfcl needs --in .*, --answers .* and --out TASKS\.jsonl/,
    );
    await expect(runBfcl(["--bogus", "1"])).rejects.toThrow(UsageError);
    await expect(main(["data", "squad"])).rejects.toThrow(
      /rlf data needs one of hotpotqa, bfcl, ftrl, verifiers, export \(got "squad"\)/,
    );
  });
});
