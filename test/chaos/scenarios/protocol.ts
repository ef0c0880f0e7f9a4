// Finding: after a stdio tool server is respawned, the negotiated protocol fell back from 2026-07-28
// to 2025-11-25. The `server/discover` probe of each (re)connect runs on a throw-away sibling process
// with a 3 s budget; a respawn that starts slowly (a loaded machine) timed the probe out, which on
// stdio means "legacy". Reproduced with a server whose every start after the first takes 4 s.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readyz, startTestGateway, TESTBED, waitFor } from "@rlfactory/test-support/gateway-harness";
import { type ChaosCheck, type ChaosScenario, check, emptyTallies } from "../scenario.ts";

const RESTART_DELAY_S = 4;

const protocolOf = (detail: string | undefined) =>
  /protocol (\S+)/.exec(detail ?? "")?.[1] ?? `none (${detail})`;

const scenario: ChaosScenario = {
  name: "protocol",
  description:
    "A respawned stdio tool server keeps the negotiated protocol version (2026-07-28), even when it starts slower than the version probe's budget.",
  async run({ bounded, workDir, log }) {
    const tallies = emptyTallies();
    const checks: ChaosCheck[] = [];
    const respawns = bounded ? 2 : 5;
    const marker = join(workDir, "started-once");
    const script = join(workDir, "slow-restart.sh");
    // Every start after the first sleeps before exec'ing the server (probe siblings included).
    writeFileSync(
      script,
      `#!/bin/sh\nif [ -e '${marker}' ]; then sleep ${RESTART_DELAY_S}; fi\ntouch '${marker}'\nexec '${process.execPath}' '${TESTBED}' --stdio\n`,
    );
    chmodSync(script, 0o755);
    const gw = await startTestGateway({
      servers: {
        testbed: {
          command: script,
          policy: { reconnect: { initial_delay_ms: 50, max_delay_ms: 200 } },
        },
      },
    });
    const admin = gw.gateway.adminUrl!;
    const seen: string[] = [];
    let listChangedHeard = false;
    try {
      seen.push(protocolOf((await readyz(admin)).upstreams[0]?.detail));
      log(`first start: protocol ${seen[0]}`);
      for (let i = 0; i < respawns; i++) {
        const r = await gw.client.callTool({ name: "testbed__pid", arguments_json: "{}" });
        const pid = (JSON.parse(r.structured_content_json) as { pid: number }).pid;
        process.kill(pid, "SIGKILL");
        tallies.cases_tried++;
        await waitFor(
          async () => (await readyz(admin)).upstreams[0]?.state !== "ready",
          10_000,
          "the death noticed",
        );
        await waitFor(
          async () => (await readyz(admin)).upstreams[0]?.state === "ready",
          60_000,
          "the respawn",
        );
        const after = (await readyz(admin)).upstreams[0]?.detail;
        seen.push(protocolOf(after));
        const ok = await gw.client.callTool({ name: "testbed__echo", arguments_json: '{"value":1}' });
        if (ok.error_code !== "OK") tallies.calls_lost++;
        log(`respawn ${i + 1}: protocol ${seen.at(-1)}, call ${ok.error_code}`);
      }
      // The respawned connection still hears tools/list_changed (a probed connect subscribes at connect).
      await gw.client.callTool({ name: "testbed__add_tool", arguments_json: '{"name":"late"}' });
      await waitFor(
        async () => (await gw.client.listTools("testbed")).some((t) => t.name === "testbed__late"),
        10_000,
        "the added tool in the catalog",
      ).then(
        () => (listChangedHeard = true),
        () => (listChangedHeard = false),
      );
    } finally {
      await gw.stop();
    }
    checks.push(
      check("the first start negotiates 2026-07-28", seen[0] === "2026-07-28", `negotiated ${seen[0]}`),
    );
    checks.push(
      check(
        `every one of ${respawns} respawns (each starting ${RESTART_DELAY_S} s late) keeps 2026-07-28`,
        seen.slice(1).every((v) => v === "2026-07-28") && seen.length === respawns + 1,
        `negotiated after each respawn: ${seen.slice(1).join(", ")}`,
      ),
    );
    checks.push(
      check(
        "after the respawns, a tool the server adds reaches the catalog (tools/list_changed)",
        listChangedHeard,
        listChangedHeard ? "testbed__late listed" : "testbed__late not listed within 10 s",
      ),
    );
    checks.push(
      check("a call after each respawn succeeds", tallies.calls_lost === 0, `${tallies.calls_lost} failed`),
    );
    return {
      tallies,
      checks,
      figures: {
        respawns,
        restart_delay_s: RESTART_DELAY_S,
        protocol_first_start: seen[0] ?? null,
        protocols_after_respawn: seen.slice(1).join(","),
      },
    };
  },
};

export default scenario;
