// Compose's `sim` profile in the built image: the simulated-llm service's entrypoint, command and
// environment, read from deploy/compose.yaml, run as a container of rlfactory:dev (host network, as
// compose runs it), and a vLLM completion request over loopback gets the scripted policy's answer.
// That proves the image ships the simulators package (`rlf-sim`) and its dependencies.
//
// Needs Docker and the image (.ci/docker-setup.sh, then deploy/build-images.sh). Without a Docker
// daemon it is skipped, except under CI, where it must run.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { qwen3Tokenizer } from "@rlfactory/rollout";
import { ROOT } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { dockerAvailable, httpOk, RLF_IMAGE, requireImages, ServiceContainers } from "./docker-services.ts";

const SERVICE = "simulated-llm";
const composeService = z.object({
  image: z.string(),
  profiles: z.array(z.string()),
  entrypoint: z.array(z.string()),
  command: z.array(z.string()),
  environment: z.record(z.string(), z.string()),
});
const compose = z
  .object({ services: z.record(z.string(), z.unknown()) })
  .parse(parseYaml(readFileSync(join(ROOT, "deploy/compose.yaml"), "utf8"), { merge: true }));
const sim = composeService.parse(compose.services[SERVICE]);
const port = Number(sim.command[sim.command.indexOf("--port") + 1]);
const policy = sim.command[sim.command.indexOf("--policy") + 1];

const hasDocker = await dockerAvailable();
const runHere = hasDocker || process.env.CI !== undefined;
if (!runHere) console.warn("sim profile e2e skipped: no Docker daemon (`docker info` fails) and CI is unset");

describe.skipIf(!runHere)("compose's sim profile in the built image", () => {
  const containers = new ServiceContainers("rlf-sim-e2e");

  beforeAll(async () => {
    if (!hasDocker) throw new Error("CI is set but `docker info` fails: run .ci/docker-setup.sh first");
    await requireImages([RLF_IMAGE]);
    await containers.removeLeftover(SERVICE);
    await containers.start({
      name: SERVICE,
      image: RLF_IMAGE,
      entrypoint: sim.entrypoint,
      command: sim.command,
      env: sim.environment,
      ready: () => httpOk(sim.environment.RLF_HEALTH_URL ?? ""),
    });
  }, 120_000);

  afterAll(() => containers.stopAll(), 60_000);

  it("is the profile's service, on the port the compose rollout service looks for vLLM", () => {
    expect(sim.profiles).toEqual(["sim"]);
    expect(sim.image).toBe("rlfactory:dev");
    expect(sim.environment.RLF_HEALTH_URL).toBe(`http://127.0.0.1:${port}/health`);
  });

  it("answers a vLLM completion request over loopback with the scripted policy's tool call", async () => {
    const question = "who wrote Hamlet";
    const tok = await qwen3Tokenizer();
    const prompt = tok.renderChat([{ role: "user", content: `Question: ${question}` }], {
      addGenerationPrompt: true,
    });
    const res = await fetch(`http://127.0.0.1:${port}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt, max_tokens: 256 }),
    });
    expect(res.status).toBe(200);
    const body = z
      .object({
        model: z.string(),
        choices: z.array(z.object({ text: z.string(), finish_reason: z.string() })).length(1),
      })
      .parse(await res.json());
    expect(body.model).toBe(`simulated-${policy}`);
    expect(body.choices[0]).toEqual({
      text: `<tool_call>\n{"name": "search__search", "arguments": {"query": "${question}"}}\n</tool_call>`,
      finish_reason: "stop",
    });
  });
});
