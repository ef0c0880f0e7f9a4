// Findings: the breaker opened on a healthy server whose callers asked for less time than the tool
// takes (deadline_ms: 1), and must still open for a server that is stopped or gone, and recover.
// A real gateway over a real stdio testbed server: 100 calls with deadline_ms 1, then an ordinary
// call; the server SIGSTOPped (calls time out at its configured deadline) then SIGCONTed; the server
// SIGKILLed with calls in flight, then respawned.
import { startTestGateway, TESTBED, waitFor } from "@rlfactory/test-support/gateway-harness";
import { callWithin, describeCounts, tally, testbedPid, upstreamState } from "../gateway-calls.ts";
import { type ChaosCheck, type ChaosScenario, check, emptyTallies } from "../scenario.ts";

const CONFIGURED_DEADLINE_MS = 400;
const CONSECUTIVE_FAILURES = 3;
const HALF_OPEN_AFTER_MS = 1_000;
const GUARD_MS = 20_000;

const scenario: ChaosScenario = {
  name: "breaker",
  description:
    "100 calls with deadline_ms 1 never open a healthy server's breaker (the next ordinary call succeeds); a SIGSTOPped or killed server opens it, and it closes again once the server is back.",
  async run({ bounded, log }) {
    const tallies = emptyTallies();
    const checks: ChaosCheck[] = [];
    const figures: Record<string, number | string | boolean | null> = {};
    const shortCalls = 100;
    const gw = await startTestGateway({
      servers: {
        testbed: {
          command: process.execPath,
          args: [TESTBED, "--stdio"],
          policy: {
            deadline_ms: CONFIGURED_DEADLINE_MS,
            breaker: { consecutive_failures: CONSECUTIVE_FAILURES, half_open_after_ms: HALF_OPEN_AFTER_MS },
            reconnect: { initial_delay_ms: 100, max_delay_ms: 500 },
            retry: { max_attempts: 1 },
          },
        },
      },
    });
    const admin = gw.gateway.adminUrl!;
    const state = () => upstreamState(admin);
    const sleep = (ms: number, extra: Record<string, unknown> = {}) => ({
      name: "testbed__sleep",
      arguments_json: JSON.stringify({ ms }),
      ...extra,
    });
    let stoppedPid: number | undefined;
    try {
      // 1. The caller's own deadline is no server fault.
      const short = [];
      let openSeen = 0;
      for (let i = 0; i < shortCalls; i++) {
        short.push(await callWithin(gw.client, sleep(50, { deadline_ms: 1 }), GUARD_MS));
        if ((await state()).breaker !== "closed") openSeen++;
      }
      tallies.cases_tried += shortCalls;
      const ordinary = await callWithin(gw.client, sleep(5), GUARD_MS);
      tallies.cases_tried++;
      const falseOpen = openSeen > 0 || (ordinary.kind === "answered" && ordinary.code === "CIRCUIT_OPEN");
      if (falseOpen) tallies.breaker_false_opens++;
      figures.short_deadline_calls = shortCalls;
      figures.short_deadline_outcomes = describeCounts(tally(short));
      checks.push(
        check(
          `${shortCalls} calls with deadline_ms 1 answer TIMEOUT and never open the breaker`,
          tally(short).TIMEOUT === shortCalls && openSeen === 0,
          `${describeCounts(tally(short))}; breaker seen not closed after ${openSeen} of them`,
        ),
      );
      checks.push(
        check(
          "the next ordinary call succeeds",
          ordinary.kind === "answered" && ordinary.code === "OK",
          JSON.stringify(ordinary),
        ),
      );
      log(`deadline_ms 1: ${describeCounts(tally(short))}; then ${JSON.stringify(ordinary)}`);

      // 2. A stopped server: calls time out at its configured deadline, which opens the breaker.
      stoppedPid = await testbedPid(gw.client);
      process.kill(stoppedPid, "SIGSTOP");
      const whileStopped = [];
      for (let i = 0; i < CONSECUTIVE_FAILURES + 3 && (await state()).breaker !== "open"; i++)
        whileStopped.push(await callWithin(gw.client, sleep(5), GUARD_MS));
      const afterStop = await state();
      const rejected = await callWithin(gw.client, sleep(5), GUARD_MS);
      tallies.cases_tried += whileStopped.length + 1;
      process.kill(stoppedPid, "SIGCONT");
      stoppedPid = undefined;
      checks.push(
        check(
          `a SIGSTOPped server opens the breaker after ${CONSECUTIVE_FAILURES} calls time out at its configured deadline`,
          afterStop.breaker === "open" && tally(whileStopped).TIMEOUT === CONSECUTIVE_FAILURES,
          `calls while stopped: ${describeCounts(tally(whileStopped))}; breaker ${afterStop.breaker}`,
        ),
      );
      checks.push(
        check(
          "while open, a call is refused at once with CIRCUIT_OPEN",
          rejected.kind === "answered" && rejected.code === "CIRCUIT_OPEN",
          JSON.stringify(rejected),
        ),
      );
      let recoveredAfter = 0;
      await waitFor(
        async () => {
          recoveredAfter++;
          const r = await callWithin(gw.client, sleep(5), GUARD_MS);
          return r.kind === "answered" && r.code === "OK";
        },
        15_000,
        "a successful call after SIGCONT",
      ).catch(() => {});
      const afterCont = await state();
      checks.push(
        check(
          "after SIGCONT the breaker closes again (a half-open trial call succeeds)",
          afterCont.breaker === "closed",
          `breaker ${afterCont.breaker} after ${recoveredAfter} tries`,
        ),
      );
      figures.sigstop_calls_until_open = whileStopped.length;
      log(
        `SIGSTOP: ${describeCounts(tally(whileStopped))}, breaker ${afterStop.breaker}; SIGCONT: ${afterCont.breaker}`,
      );

      // 3. A killed server: calls in flight fail UNAVAILABLE, the breaker opens; the respawn closes it.
      const rounds = bounded ? 1 : 3;
      for (let round = 0; round < rounds; round++) {
        const pid = await testbedPid(gw.client);
        const inFlight = Array.from({ length: CONSECUTIVE_FAILURES + 1 }, () =>
          callWithin(gw.client, sleep(60_000, { deadline_ms: 60_000 }), GUARD_MS),
        );
        await new Promise((r) => setTimeout(r, 300));
        process.kill(pid, "SIGKILL");
        const killed = await Promise.all(inFlight);
        const afterKill = await state();
        tallies.cases_tried += killed.length;
        tallies.calls_lost += killed.filter((o) => o.kind === "lost").length;
        tallies.hangs += killed.filter((o) => o.kind === "hung").length;
        await waitFor(async () => (await state()).state === "ready", 30_000, "the respawn").catch(() => {});
        await waitFor(
          async () => {
            const r = await callWithin(gw.client, sleep(5), GUARD_MS);
            return r.kind === "answered" && r.code === "OK";
          },
          15_000,
          "a successful call after the respawn",
        ).catch(() => {});
        const afterRespawn = await state();
        const newPid = await testbedPid(gw.client).catch(() => pid);
        checks.push(
          check(
            `killed server${rounds > 1 ? ` (round ${round + 1})` : ""}: in-flight calls answer UNAVAILABLE and the breaker opens`,
            tally(killed).UNAVAILABLE === killed.length && afterKill.breaker === "open",
            `in flight: ${describeCounts(tally(killed))}; breaker ${afterKill.breaker}`,
          ),
        );
        checks.push(
          check(
            `killed server${rounds > 1 ? ` (round ${round + 1})` : ""}: respawned (new process) and the breaker closes`,
            afterRespawn.breaker === "closed" && afterRespawn.state === "ready" && newPid !== pid,
            `state ${afterRespawn.state}, breaker ${afterRespawn.breaker}, pid ${pid} → ${newPid}`,
          ),
        );
        log(
          `SIGKILL: ${describeCounts(tally(killed))}, breaker ${afterKill.breaker} → ${afterRespawn.breaker}`,
        );
      }
    } finally {
      if (stoppedPid !== undefined) process.kill(stoppedPid, "SIGCONT");
      await gw.stop();
    }
    figures.configured_deadline_ms = CONFIGURED_DEADLINE_MS;
    figures.breaker_consecutive_failures = CONSECUTIVE_FAILURES;
    figures.breaker_half_open_after_ms = HALF_OPEN_AFTER_MS;
    return { tallies, checks, figures };
  },
};

export default scenario;
