// Chaos scenario "calculator": a real `rlf tool calculator` process on loopback. One caller sends
// expensive expressions, another a `2+2` right after them; then, while the workers the deadline
// terminated are being replaced, rounds of simple expressions land on freshly started workers; then
// probes try to read a function's source. Checks are about answers and their order, never timing.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ROOT, stopChild } from "@rlfactory/test-support/gateway-harness";
import { connectHttp } from "@rlfactory/test-support/mcp-client";
import { type ChaosScenario, type ChaosScenarioResult, check, emptyTallies } from "../scenario.ts";

type McpClient = Awaited<ReturnType<typeof connectHttp>>;

/** Seconds of CPU in one expression: trial division of the largest prime below 2^53, 30 times. */
const EXPENSIVE = Array.from({ length: 30 }, () => "isPrime(9007199254740881)").join(" + ");

/** Simple expressions of every number mode, with the answer each must get. */
const SIMPLE = [
  { expression: "2+2", number: "number", result: 4 },
  { expression: "1/3 + 1/6", number: "fraction", result: "1/2" },
  { expression: "0.1 + 0.2", number: "bignumber", result: "0.3" },
  { expression: "sqrt(16) * 3", number: "number", result: 12 },
] as const;

/** Ways an expression might try to show a function's source. */
const SOURCE_PROBES = [
  "cos.toString()",
  'cos["toString"]()',
  "cos.toLocaleString()",
  "string(cos)",
  "string(map)",
  "string([cos, add])",
  "format(cos)",
  'print("$a", {a: cos})',
  "string(evaluate)",
  "string(typed)",
  "cos.toString.toString()",
  "cos.constructor",
  "cos.signatures",
  "cos",
];

/** Text that only a function's source would contain. */
const SOURCE_MARKERS = /return|=>|[{}]|\bthis\b|native code|function\s*\(/;

interface Answer {
  ok: boolean;
  /** The structured result, or the error text. */
  value: unknown;
  text: string;
}

async function calculate(client: McpClient, expression: string, number = "number"): Promise<Answer> {
  const result = await client.callTool(
    { name: "calculate", arguments: { expression, number } },
    { timeout: 120_000 },
  );
  const text = (result.content as { type: string; text?: string }[])[0]?.text ?? "";
  const structured = result.structuredContent as { result?: unknown } | undefined;
  return result.isError === true
    ? { ok: false, value: text, text }
    : { ok: true, value: structured?.result, text };
}

interface CalculatorProcess {
  child: ChildProcess;
  url: string;
}

function startCalculator(workers: number, timeoutMs: number): Promise<CalculatorProcess> {
  const args = ["tool", "calculator", "--workers", String(workers), "--timeout-ms", String(timeoutMs)];
  const child = spawn(process.execPath, [join(ROOT, "services/cli/bin/rlf.js"), ...args, "--http", "0"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let stderr = "";
    createInterface({ input: child.stderr! }).on("line", (line) => {
      stderr += `${line}\n`;
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "listening" && typeof entry.url === "string") resolve({ child, url: entry.url });
      } catch {
        // not a JSON log line
      }
    });
    child.once("exit", (code) =>
      reject(new Error(`calculator exited (${code}) before listening:\n${stderr}`)),
    );
  });
}

function rssMib(pid: number | undefined): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? null : Math.round(Number(kb) / 1024);
  } catch {
    return null;
  }
}

const scenario: ChaosScenario = {
  name: "calculator",
  description:
    "Calculator evaluated serially (`2+2` waited 13.9 s behind 10 expensive expressions) and showed function source; " +
    "a fresh worker once answered `2+2` with a false out-of-memory error.",
  async run({ bounded, log }): Promise<ChaosScenarioResult> {
    const expensiveCount = bounded ? 3 : 10;
    const workers = expensiveCount + 1;
    const timeoutMs = bounded ? 1_000 : 2_000;
    const rounds = bounded ? 1 : 3;
    const perRound = bounded ? 8 : 24;
    const tallies = emptyTallies();
    const checks: ChaosScenarioResult["checks"][number][] = [];

    const t0 = performance.now();
    const at = () => `${Math.round(performance.now() - t0)} ms`;
    log(`calculator: starting with --workers ${workers} --timeout-ms ${timeoutMs}`);
    const server = await startCalculator(workers, timeoutMs);
    const callers = [
      await connectHttp(server.url, "2025-11-25"),
      await connectHttp(server.url, "2025-11-25"),
    ];
    const [expensiveCaller, cheapCaller] = callers as [McpClient, McpClient];
    try {
      // 1. Fresh server: every worker starts for these, all at once.
      const warm = await Promise.all(
        Array.from({ length: workers }, (_, i) => {
          const c = SIMPLE[i % SIMPLE.length]!;
          return calculate(cheapCaller, c.expression, c.number).then((a) => ({ a, c }));
        }),
      );
      tallies.cases_tried += warm.length;

      // 2. Expensive expressions from one caller, then `2+2` from another.
      log(`calculator: ${at()}: ${expensiveCount} expensive expressions, then 2+2`);
      const order: string[] = [];
      const startedAt = performance.now();
      const expensive = Array.from({ length: expensiveCount }, (_, i) =>
        calculate(expensiveCaller, EXPENSIVE).then((answer) => {
          order.push(`expensive ${i}`);
          return answer;
        }),
      );
      const cheap = calculate(cheapCaller, "2+2").then((answer) => {
        order.push("2+2");
        return { answer, ms: performance.now() - startedAt };
      });
      const [cheapDone, ...expensiveDone] = await Promise.all([cheap, ...expensive]);
      const expensiveMs = performance.now() - startedAt;
      tallies.cases_tried += expensiveCount + 1;

      // 3. Rounds of simple expressions while the workers the deadline stopped are replaced: each
      // round first has every worker's expression stopped at the deadline, so the next arrive on
      // workers that are just starting.
      log(`calculator: ${at()}: ${rounds} rounds of ${perRound} simple expressions on fresh workers`);
      const fresh: { expected: unknown; answer: Answer }[] = [];
      for (let round = 0; round < rounds; round++) {
        if (round > 0) {
          const stopped = await Promise.all(
            Array.from({ length: workers }, () => calculate(expensiveCaller, EXPENSIVE)),
          );
          tallies.cases_tried += stopped.length;
        }
        const answers = await Promise.all(
          Array.from({ length: perRound }, (_, i) => {
            const c = SIMPLE[i % SIMPLE.length]!;
            return calculate(cheapCaller, c.expression, c.number).then((answer) => ({
              expected: c.result,
              answer,
            }));
          }),
        );
        fresh.push(...answers);
        tallies.cases_tried += answers.length;
      }

      // 4. Function source.
      log(`calculator: ${at()}: function source probes`);
      const probes = [];
      for (const expression of SOURCE_PROBES)
        probes.push({ expression, answer: await calculate(cheapCaller, expression) });
      tallies.cases_tried += probes.length;
      const rss = rssMib(server.child.pid);

      const warmWrong = warm.filter(({ a, c }) => !a.ok || a.value !== c.result);
      checks.push(
        check(
          `${workers} simple expressions on a just-started server (every worker starting) are all answered correctly`,
          warmWrong.length === 0,
          warmWrong.length === 0
            ? `${warm.length} of ${warm.length} correct`
            : `wrong: ${warmWrong.map(({ a, c }) => `${c.expression} → ${a.text}`).join("; ")}`,
        ),
      );
      const cheapFirst = order[0] === "2+2";
      checks.push(
        check(
          `2+2 from another caller is answered 4 before any of ${expensiveCount} expensive expressions finishes`,
          cheapFirst && cheapDone.answer.ok && cheapDone.answer.value === 4,
          `2+2 → ${cheapDone.answer.text}; finish order: ${order.join(", ")}`,
        ),
      );
      const deadlineError = `The expression exceeded the time limit of ${timeoutMs} ms`;
      const notStopped = expensiveDone.filter((a) => a.ok || a.text !== deadlineError);
      checks.push(
        check(
          `every expensive expression is stopped with "${deadlineError}"`,
          notStopped.length === 0,
          notStopped.length === 0
            ? `${expensiveDone.length} of ${expensiveDone.length} stopped at the deadline`
            : `other answers: ${notStopped.map((a) => a.text).join("; ")}`,
        ),
      );
      const freshWrong = fresh.filter(({ expected, answer }) => !answer.ok || answer.value !== expected);
      const falseMemory = fresh.filter(({ answer }) => /memory/i.test(answer.text));
      checks.push(
        check(
          `${fresh.length} simple expressions arriving on just-replaced workers are all answered correctly, none with a memory error`,
          freshWrong.length === 0,
          freshWrong.length === 0
            ? `${fresh.length} of ${fresh.length} correct`
            : `${freshWrong.length} wrong (${falseMemory.length} memory errors): ${freshWrong
                .slice(0, 5)
                .map(({ answer }) => answer.text)
                .join("; ")}`,
        ),
      );
      // The result (or the error) only: an answer's text repeats the expression itself.
      const shown = (answer: Answer) => (answer.ok ? String(answer.value) : answer.text);
      const leaked = probes.filter(({ answer }) => SOURCE_MARKERS.test(shown(answer)));
      checks.push(
        check(
          "no expression shows a function's source",
          leaked.length === 0,
          leaked.length === 0
            ? probes.map(({ expression, answer }) => `${expression} → ${shown(answer)}`).join("; ")
            : `source shown: ${leaked.map(({ expression, answer }) => `${expression} → ${shown(answer).slice(0, 80)}`).join("; ")}`,
        ),
      );
      const running = server.child.exitCode === null && server.child.signalCode === null;
      checks.push(check("the calculator process is still running", running, `pid ${server.child.pid}`));
      if (!running) tallies.crashes++;

      return {
        tallies,
        checks,
        figures: {
          workers,
          timeout_ms: timeoutMs,
          expensive_expressions: expensiveCount,
          two_plus_two_ms_behind_expensive: Math.round(cheapDone.ms),
          expensive_all_answered_ms: Math.round(expensiveMs),
          fresh_worker_expressions: fresh.length + warm.length,
          fresh_worker_wrong_answers: freshWrong.length + warmWrong.length,
          fresh_worker_false_memory_errors:
            falseMemory.length + warm.filter(({ a }) => /memory/i.test(a.text)).length,
          source_probes: probes.length,
          source_probes_showing_source: leaked.length,
          server_rss_mib_after: rss,
        },
      };
    } catch (error) {
      tallies.calls_lost++;
      throw error;
    } finally {
      await Promise.all(callers.map((c) => c.close().catch(() => {})));
      await stopChild(server.child);
    }
  },
};

export default scenario;
