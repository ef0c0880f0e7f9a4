// The BFCL multi-turn pack: the eight multi-turn API classes of the PyPI package bfcl-eval (installed
// into services/environments/.venv by scripts/setup.sh; its code is not part of this repository),
// with BFCL's own function docs as tool schemas. An episode's config is a BFCL entry's
// `{ involved_classes, initial_config }`; each class is loaded the way BFCL does it (`_load_scenario`).
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EnvironmentError } from "./environment-error.ts";
import {
  PythonEnvironmentHost,
  type PythonEnvironmentHostOptions,
  readFunctionDocs,
} from "./python-environment-host.ts";

const BACKEND = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code";

/** BFCL's class names (as its entries' involved_classes spell them), their modules and function docs. */
export const BFCL_CLASSES = {
  GorillaFileSystem: { module: "gorilla_file_system", docs: "gorilla_file_system.json" },
  MathAPI: { module: "math_api", docs: "math_api.json" },
  MessageAPI: { module: "message_api", docs: "message_api.json" },
  TwitterAPI: { module: "posting_api", docs: "posting_api.json" },
  TicketAPI: { module: "ticket_api", docs: "ticket_api.json" },
  TradingBot: { module: "trading_bot", docs: "trading_bot.json" },
  TravelAPI: { module: "travel_booking", docs: "travel_booking.json" },
  VehicleControlAPI: { module: "vehicle_control", docs: "vehicle_control.json" },
} as const;

/** The pack's venv, made by `npm run setup:environments`. */
export const BFCL_VENV = resolve(dirname(fileURLToPath(import.meta.url)), "../.venv");

/** bfcl_eval's package folder inside a venv, or undefined when it is not installed there. */
export function bfclPackageDir(venv: string = BFCL_VENV): string | undefined {
  const lib = join(venv, "lib");
  if (!existsSync(lib)) return undefined;
  for (const python of readdirSync(lib)) {
    const dir = join(lib, python, "site-packages", "bfcl_eval");
    if (existsSync(join(dir, "eval_checker"))) return dir;
  }
  return undefined;
}

export type BfclHostOptions = Omit<
  PythonEnvironmentHostOptions,
  "classes" | "functionDocs" | "construct" | "venv" | "python"
> & { venv?: string };

/** Starts a host serving the eight BFCL multi-turn classes from the pack's venv. */
export async function startBfclHost(options: BfclHostOptions = {}): Promise<PythonEnvironmentHost> {
  const venv = options.venv ?? BFCL_VENV;
  const pkg = bfclPackageDir(venv);
  if (pkg === undefined)
    throw new EnvironmentError(
      "WORKER_FAILED",
      `bfcl-eval is not installed in ${venv}: run \`npm run setup:environments\``,
    );
  const functionDocs = Object.values(BFCL_CLASSES).flatMap((c) =>
    readFunctionDocs(join(pkg, "data", "multi_turn_func_doc", c.docs)),
  );
  return PythonEnvironmentHost.start({
    ...options,
    venv,
    classes: Object.entries(BFCL_CLASSES).map(([className, c]) => ({
      module: `${BACKEND}.${c.module}`,
      className,
    })),
    functionDocs,
    construct: "load_scenario",
  });
}
