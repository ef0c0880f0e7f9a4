// Findings: a gateway configured to take its API keys from an environment variable started with
// auth OFF when that variable was empty; and /readyz told anyone without a key each upstream's last
// error (addresses, paths). Real `rlf gateway` processes: the variable unset, empty, blank, only
// commas, and holding a short key must each refuse to start, naming the variable and never a key;
// a running gateway with keys answers /readyz without a key with names and states only.
import { GatewayClient } from "@rlfactory/clients";
import { TESTBED } from "@rlfactory/test-support/gateway-harness";
import { type GatewayProcess, refusedGateway, startGatewayProcess } from "../gateway-process.ts";
import { type ChaosCheck, type ChaosScenario, check, emptyTallies } from "../scenario.ts";

const VAR = "RLF_CHAOS_API_KEYS";
const KEY = "chaos-api-key-0123456789abcdef";
const SHORT_KEY = "abc";
/** An upstream nobody listens on: its connect error names the address. */
const DEAD_URL = "http://127.0.0.1:9/mcp";

const scenario: ChaosScenario = {
  name: "auth",
  description:
    "Auth fails closed: a gateway whose api_keys_env variable is unset, empty or blank does not start and says why; /readyz without a key shows no error details or addresses.",
  async run({ workDir, log }) {
    const tallies = emptyTallies();
    const checks: ChaosCheck[] = [];
    const figures: Record<string, number | string | boolean | null> = {};
    const config = {
      auth: { api_keys_env: VAR },
      servers: { testbed: { command: process.execPath, args: [TESTBED, "--stdio"] } },
    };
    const refusals: [string, string | undefined][] = [
      ["unset", undefined],
      ["empty", ""],
      ["blank", "   "],
      ["only commas", " , ,"],
      ["a 3-character key", `${KEY},${SHORT_KEY}`],
    ];
    let refused = 0;
    for (const [what, value] of refusals) {
      const r = await refusedGateway(workDir, config, { [VAR]: value });
      tallies.cases_tried++;
      const ok = r.code !== 0 && r.code !== null && !r.listened && r.output.includes(VAR);
      const leaksKey =
        r.output.includes(KEY) || (value === `${KEY},${SHORT_KEY}` && r.output.includes(SHORT_KEY));
      if (ok && !leaksKey) refused++;
      checks.push(
        check(
          `${VAR} ${what}: the gateway does not start, names the variable, and prints no key`,
          ok && !leaksKey,
          `exit ${r.code}, listened ${r.listened}: ${r.output.trim().split("\n").slice(-2).join(" | ").slice(0, 300)}`,
        ),
      );
      log(`${what}: exit ${r.code}, ${r.output.trim().split("\n").at(-1)?.slice(0, 200)}`);
    }
    figures.bad_key_configs_refused = refused;
    figures.bad_key_configs_tried = refusals.length;

    // A running gateway with a key, one upstream healthy and one unreachable.
    let gw: GatewayProcess | undefined;
    try {
      gw = await startGatewayProcess(
        workDir,
        {
          ...config,
          servers: { ...config.servers, dead: { url: DEAD_URL } },
          defaults: { reconnect: { initial_delay_ms: 100, max_delay_ms: 500 } },
        },
        { [VAR]: KEY },
      );
      const admin = gw.adminUrl;
      // Wait until the dead upstream has an error to hide (its connect attempt failed).
      for (let i = 0; i < 100; i++) {
        const full = (await (
          await fetch(`${admin}/readyz`, { headers: { authorization: `Bearer ${KEY}` } })
        ).json()) as {
          upstreams: { name: string; detail?: string }[];
        };
        if (full.upstreams.find((u) => u.name === "dead")?.detail?.includes("connect failed")) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const anonymous = await fetch(`${admin}/readyz`);
      const anonymousText = await anonymous.text();
      const keyed = await (
        await fetch(`${admin}/readyz`, { headers: { authorization: `Bearer ${KEY}` } })
      ).text();
      tallies.cases_tried += 2;
      const anonymousBody = JSON.parse(anonymousText) as { upstreams: Record<string, unknown>[] };
      const onlyNameState = anonymousBody.upstreams.every((u) =>
        Object.keys(u).every((k) => k === "name" || k === "state"),
      );
      checks.push(
        check(
          "/readyz without a key shows each upstream's name and state only: no error detail, no address",
          onlyNameState && !anonymousText.includes("127.0.0.1") && !anonymousText.includes("connect failed"),
          `status ${anonymous.status}: ${anonymousText.slice(0, 300)}`,
        ),
      );
      checks.push(
        check(
          "/readyz with the key shows the unreachable upstream's error",
          keyed.includes("connect failed"),
          keyed.slice(0, 300),
        ),
      );
      const tools = await fetch(`${admin}/v1/tools`);
      const toolsBody = (await tools.json()) as { error?: { code?: string; message?: string } };
      checks.push(
        check(
          "the admin API without a key answers 401 with {error:{code:UNAUTHENTICATED,message}}",
          tools.status === 401 &&
            toolsBody.error?.code === "UNAUTHENTICATED" &&
            typeof toolsBody.error.message === "string",
          `${tools.status} ${JSON.stringify(toolsBody)}`,
        ),
      );
      const noKey = new GatewayClient(gw.grpcAddress);
      const withKey = new GatewayClient(gw.grpcAddress, { apiKey: KEY });
      try {
        const denied = await noKey.listTools().then(
          () => "listed",
          (err: { code?: number }) => `code ${err.code}`,
        );
        const listed = await withKey.listTools("testbed").then(
          (t) => `${t.length} tools`,
          (err: Error) => err.message,
        );
        tallies.cases_tried += 3;
        checks.push(
          check("gRPC without a key is refused UNAUTHENTICATED (16)", denied === "code 16", denied),
        );
        checks.push(check("gRPC with the key lists the tools", /^[1-9]\d* tools$/.test(listed), listed));
      } finally {
        noKey.close();
        withKey.close();
      }
      if (gw.exited()) tallies.crashes++;
      checks.push(
        check(
          "the gateway process did not crash",
          !gw.exited(),
          gw.exited() ? gw.output().slice(-500) : "running",
        ),
      );
    } finally {
      await gw?.stop();
    }
    return { tallies, checks, figures };
  },
};

export default scenario;
