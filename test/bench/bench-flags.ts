// A bench's command line (`npm run bench -- NAME --flag value ...`): every flag a string option of
// node:util parseArgs, strict, then the zod object `Flags` that coerces and checks them. A mistake
// throws with the bench's usage line.
import { parseArgs } from "node:util";
import { z } from "zod";

export function parseBenchFlags<F extends z.ZodObject>(argv: string[], Flags: F, usage: string): z.infer<F> {
  const strings = Object.fromEntries(Object.keys(Flags.shape).map((k) => [k, { type: "string" as const }]));
  let raw: Record<string, unknown>;
  try {
    raw = parseArgs({ args: argv, options: strings, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new Error(`${(e as Error).message}\nusage: ${usage}`);
  }
  const parsed = Flags.safeParse(raw);
  if (!parsed.success) throw new Error(`${z.prettifyError(parsed.error)}\nusage: ${usage}`);
  return parsed.data;
}
