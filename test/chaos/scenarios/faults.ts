// Finding: calls in flight when a tool server stops, dies or slows down must each get an answer —
// a result or a typed error — within their deadline: none lost (the RPC failing), none hanging.
// A real gateway over a real stdio testbed server, with calls in flight while the server is
// SIGSTOPped, SIGKILLed, and slowed (stopped and continued on a duty cycle).
import { startTestGateway, TESTBED, waitFor } from "@rlfactory/test-support/gateway-harness";
import { type CallOutcome, callWithin, describeCounts, tally, testbedPid } from "../gateway-calls.ts";
import { type ChaosCheck, type ChaosScenario, check, emptyTallies } from "../scenario.ts";

const DEADLINE_MS = 2_000;
/** No answer this long after the deadline is a hang. */
const GUARD_MS = DEADLINE_MS + 10_000;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

const scenario: ChaosScenario = {
  name: "faults",
  description:
    "Calls in flight while a tool server is SIGSTOPped, SIGKILLed or slowed down each get an answer (a result or a typed error) by their deadline: none lost, none hanging.",
  async run({ bounded, log }) {
    const tallies = emptyTallies();
    const checks: ChaosCheck[] = [];
    const figures: Record<string, number | string | boolean | null> = { deadline_ms: DEADLINE_MS };
    const inFlight = bounded ? 32 : 64;
    const gw = await startTestGateway({
      servers: {
        testbed: {
          command: process.execPath,
          args: [TESTBED, "--stdio"],
          policy: {
            deadline_ms: DEADLINE_MS,
            breaker: { consecutive_failures: 5, half_open_after_ms: 500 },
            reconnect: { initial_delay_ms: 100, max_delay_ms: 500 },
          },
        },
      },
    });
    const call = (ms: number) =>
      callWithin(gw.client, { name: "testbed__sleep", arguments_json: JSON.stringify({ ms }) }, GUARD_MS);
    /** Waits until a call answers OK again (the server back, the breaker closed). */
    const recovered = () =>
      waitFor(
        async () => {
          const r = await call(1);
          return r.kind === "answered" && r.code === "OK";
        },
        30_000,
        "an ordinary call to succeed again",
      ).then(
        () => true,
        () => false,
      );
    const record = (fault: string, outcomes: CallOutcome[], back: boolean, expected: string) => {
      const counts = tally(outcomes);
      const lost = outcomes.filter((o) => o.kind === "lost").length;
      const hung = outcomes.filter((o) => o.kind === "hung").length;
      const untyped = outcomes.filter((o) => o.kind === "answered" && !/^[A-Z_]+$/.test(o.code)).length;
      tallies.cases_tried += outcomes.length;
      tallies.calls_lost += lost;
      tallies.hangs += hung;
      figures[`${fault}_outcomes`] = describeCounts(counts);
      checks.push(
        check(
          `${fault}: each of ${outcomes.length} calls in flight gets an answer (${expected}); none lost, none hangs`,
          lost === 0 && hung === 0 && untyped === 0,
          describeCounts(counts),
        ),
      );
      checks.push(
        check(`${fault}: afterwards an ordinary call succeeds`, back, back ? "OK" : "no OK call in 30 s"),
      );
      log(`${fault}: ${describeCounts(counts)}; recovered ${back}`);
    };
    let stopped: number | undefined;
    try {
      // SIGSTOP longer than the deadline: every call answers TIMEOUT (or CIRCUIT_OPEN once it opened).
      let pid = await testbedPid(gw.client);
      const stoppedCalls = Array.from({ length: inFlight }, () => call(200));
      await delay(100);
      process.kill(pid, "SIGSTOP");
      stopped = pid;
      const stopOutcomes = await Promise.all(stoppedCalls);
      process.kill(pid, "SIGCONT");
      stopped = undefined;
      record("sigstop", stopOutcomes, await recovered(), "OK, TIMEOUT or CIRCUIT_OPEN");

      // SIGKILL: every call in flight answers UNAVAILABLE at once; the server is respawned.
      pid = await testbedPid(gw.client);
      const killedCalls = Array.from({ length: inFlight }, () => call(DEADLINE_MS - 200));
      await delay(300);
      process.kill(pid, "SIGKILL");
      record("sigkill", await Promise.all(killedCalls), await recovered(), "UNAVAILABLE");

      // Slow-down: the server runs 40 ms of every 100 ms while calls keep coming.
      pid = await testbedPid(gw.client);
      const slowMs = bounded ? 3_000 : 15_000;
      let slowing = true;
      const duty = (async () => {
        while (slowing) {
          process.kill(pid, "SIGSTOP");
          stopped = pid;
          await delay(60);
          process.kill(pid, "SIGCONT");
          stopped = undefined;
          await delay(40);
        }
      })();
      const slowOutcomes: CallOutcome[] = [];
      const until = Date.now() + slowMs;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (Date.now() < until) slowOutcomes.push(await call(20));
        }),
      );
      slowing = false;
      await duty;
      record("slowdown", slowOutcomes, await recovered(), "OK or TIMEOUT");
      figures.slowdown_duty_cycle = "60 ms stopped / 40 ms running";
      figures.slowdown_calls = slowOutcomes.length;
    } finally {
      if (stopped !== undefined) process.kill(stopped, "SIGCONT");
      await gw.stop();
    }
    figures.calls_in_flight = inFlight;
    return { tallies, checks, figures };
  },
};

export default scenario;
