// `rlf episodes start|fork|state|end --gateway HOST:PORT`: the gateway's episode API
// (docs/environments.md) for people and scripts. Ids go to stdout one per line; states as JSON.

import { parseArgs } from "node:util";
import { GatewayClient } from "@rlfactory/clients/gateway-client";
import { UsageError } from "@rlfactory/kit/command-line";

export async function runEpisodesCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      gateway: { type: "string", short: "g", default: process.env.RLF_GATEWAY ?? "127.0.0.1:50051" },
      config: { type: "string", default: "{}" },
      "ttl-ms": { type: "string", default: "0" },
      count: { type: "string", default: "1" },
      "api-key": { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const target = positionals[0];
  if (!target)
    throw new UsageError(`rlf episodes ${sub ?? ""} needs ${sub === "start" ? "a SERVER" : "an episode ID"}`);
  const apiKey = values["api-key"] ?? process.env.RLF_API_KEY;
  const client = new GatewayClient(values.gateway, apiKey ? { apiKey } : {});
  try {
    switch (sub) {
      case "start": {
        const ttl = wholeNumber(values["ttl-ms"], "--ttl-ms");
        process.stdout.write(`${await client.startEpisode(target, jsonObject(values.config), ttl)}\n`);
        return 0;
      }
      case "fork": {
        const ids = await client.forkEpisode(target, wholeNumber(values.count, "--count"));
        process.stdout.write(`${ids.join("\n")}\n`);
        return 0;
      }
      case "state":
        process.stdout.write(`${JSON.stringify(await client.snapshotEpisode(target), null, 2)}\n`);
        return 0;
      case "end":
        process.stdout.write(`${JSON.stringify(await client.endEpisode(target), null, 2)}\n`);
        return 0;
      default:
        throw new UsageError(`rlf episodes needs "start", "fork", "state" or "end", not "${sub ?? ""}"`);
    }
  } catch (err) {
    const e = err as { code?: number; details?: string };
    if (typeof e.code === "number" && e.details !== undefined) {
      process.stderr.write(`gateway ${values.gateway}: ${e.details}\n`);
      return 1;
    }
    throw err;
  } finally {
    client.close();
  }
}

function wholeNumber(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number`);
  return n;
}

function jsonObject(text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new UsageError("--config must be a JSON object");
  }
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw new UsageError("--config must be a JSON object");
  return v as Record<string, unknown>;
}
