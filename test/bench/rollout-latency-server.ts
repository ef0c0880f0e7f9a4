// The rollout benchmark's tool server (MCP, built with @rlfactory/toolkit): one tool, `lookup`, that
// accepts any arguments and answers after a latency that is a pure function of (seed, arguments):
//
//   with probability slow_fraction (default 0.05)   slow_ms (default 200 ms, fixed)
//   otherwise                                       lognormal, median median_ms (10 ms), sigma (0.5)
//
// The same call always takes the same time, so a trajectory replayed alone meets the same tool latencies
// it met in a crowd. The answer carries the latency it was given (`slept_ms`) and a key of the arguments.
//
//   node test/bench/rollout-latency-server.ts --http 0 [--seed N] [--median-ms 10] [--sigma 0.5]
//                                             [--slow-fraction 0.05] [--slow-ms 200]
import { setTimeout as delay } from "node:timers/promises";
import { parseArgs } from "node:util";
import { canonicalJson, hash32, unit } from "@rlfactory/kit";
import { createToolServer, defineTool, serveFromArgs, ToolError, type ToolServer } from "@rlfactory/toolkit";
import { z } from "zod";

export interface LatencyModel {
  seed: number;
  medianMs: number;
  sigma: number;
  slowFraction: number;
  slowMs: number;
}

export const DEFAULT_LATENCY_MODEL: LatencyModel = {
  seed: 1,
  medianMs: 10,
  sigma: 0.5,
  slowFraction: 0.05,
  slowMs: 200,
};

/** The latency of a call with these arguments, in ms (a pure function of the model and the arguments). */
export function drawLatencyMs(model: LatencyModel, args: unknown): number {
  const key = canonicalJson(args);
  if (unit(model.seed, "slow", key) < model.slowFraction) return model.slowMs;
  // Box-Muller on two uniforms keyed on the arguments; 1 - u keeps the log argument in (0, 1].
  const u1 = 1 - unit(model.seed, "z1", key);
  const u2 = unit(model.seed, "z2", key);
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return model.medianMs * Math.exp(model.sigma * z);
}

export const lookupOutput = z.object({ key: z.string(), slept_ms: z.number() });

export function createLatencyServer(model: LatencyModel): ToolServer {
  return createToolServer({
    name: "latency",
    version: "0.1.0",
    tools: [
      defineTool({
        name: "lookup",
        description: "Looks something up (any arguments); answers after a latency drawn from its arguments.",
        input: z.looseObject({}),
        output: lookupOutput,
        handler: async (args, ctx) => {
          const ms = drawLatencyMs(model, args);
          try {
            await delay(ms, undefined, { signal: ctx.signal });
          } catch (error) {
            if (ctx.signal.aborted) throw new ToolError("lookup was cancelled");
            throw error;
          }
          return { key: hash32(model.seed, canonicalJson(args)).toString(16), slept_ms: ms };
        },
      }),
    ],
  });
}

const Flags = z.object({
  seed: z.coerce.number().int().default(DEFAULT_LATENCY_MODEL.seed),
  "median-ms": z.coerce.number().positive().default(DEFAULT_LATENCY_MODEL.medianMs),
  sigma: z.coerce.number().min(0).default(DEFAULT_LATENCY_MODEL.sigma),
  "slow-fraction": z.coerce.number().min(0).max(1).default(DEFAULT_LATENCY_MODEL.slowFraction),
  "slow-ms": z.coerce.number().min(0).default(DEFAULT_LATENCY_MODEL.slowMs),
});

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      seed: { type: "string" },
      "median-ms": { type: "string" },
      sigma: { type: "string" },
      "slow-fraction": { type: "string" },
      "slow-ms": { type: "string" },
      stdio: { type: "boolean" },
      http: { type: "string" },
      host: { type: "string" },
    },
    strict: true,
  });
  const { stdio, http, host, ...latency } = values;
  const flags = Flags.safeParse(latency);
  if (!flags.success) {
    process.stderr.write(`rollout-latency-server: ${z.prettifyError(flags.error)}\n`);
    process.exit(2);
  }
  const f = flags.data;
  const model: LatencyModel = {
    seed: f.seed,
    medianMs: f["median-ms"],
    sigma: f.sigma,
    slowFraction: f["slow-fraction"],
    slowMs: f["slow-ms"],
  };
  const serve = [
    ...(stdio ? ["--stdio"] : []),
    ...(http === undefined ? [] : ["--http", http]),
    ...(host === undefined ? [] : ["--host", host]),
  ];
  await serveFromArgs(createLatencyServer(model), serve);
}
