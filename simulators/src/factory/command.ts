// `rlf-sim factory [--port PORT] [--host HOST] [--mix-structures]`: the scripted OpenAI-compatible
// endpoint of factory-chat-model.ts as a process, so `rlf env build` can run against it outside a test
// (the shipped example examples/ftrl-hotpotqa is built this way). SIMULATED, not a model; no product
// package depends on it.
import { parseArgs } from "node:util";
import { portArg, stopOnSignals, UsageError } from "@rlfactory/kit/command-line";
import { FACTORY_CHAT_MODEL, startFactoryChatFixture } from "./factory-chat-model.ts";

export const SIMULATE_FACTORY_USAGE = `rlf-sim factory — a SIMULATED model for rlf env build (scripted answers, not a model)

Serves OpenAI POST /v1/chat/completions and GET /v1/models as model "${FACTORY_CHAT_MODEL}": every stage of
rlf env build is answered deterministically from its input alone (the decomposition's sub-answers are
made-up facts; the last hop answers with the question's gold answer). Point endpoint.base_url at
http://HOST:PORT/v1 and endpoint.model at "${FACTORY_CHAT_MODEL}".

Usage:
  rlf-sim factory [--port PORT] [--host HOST] [--mix-structures]

Options:
  --port PORT         listen port (default 8399; 0 = any)
  --host HOST         listen address (default 127.0.0.1)
  --mix-structures    a question without a structure marker gets one of the four structures by its
                      hash (default: single_hop)
  -h, --help          this text
`;

const OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  "mix-structures": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function runSimulateFactoryCommand(argv: string[]): Promise<number> {
  let values: Partial<Record<keyof typeof OPTIONS, string | boolean>>;
  try {
    values = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError(`rlf-sim factory: ${(err as Error).message}`);
  }
  if (values.help) {
    process.stdout.write(SIMULATE_FACTORY_USAGE);
    return 0;
  }
  const fixture = await startFactoryChatFixture({
    port: typeof values.port === "string" ? portArg(values.port, "--port") : 8399,
    ...(typeof values.host === "string" ? { host: values.host } : {}),
    mixStructures: values["mix-structures"] === true,
  });
  process.stderr.write(
    `SIMULATED factory model (scripted, not a model) listening on ${fixture.baseUrl} (model ${FACTORY_CHAT_MODEL})\n`,
  );
  stopOnSignals(() => fixture.close());
  return -1;
}
