// Stateful environments: Python classes served as episode tools from sandboxed persistent workers.
export { BFCL_CLASSES, BFCL_VENV, type BfclHostOptions, bfclPackageDir, startBfclHost } from "./bfcl-pack.ts";
export * from "./bundle/index.ts";
export { EnvironmentError, type EnvironmentErrorCode, type ToolErrorCode } from "./environment-error.ts";
export * from "./ftrl/index.ts";
export { type GymHostOptions, type GymKind, gymResult, startGymHost } from "./gym-environments.ts";
export {
  OPENENV_ADAPTER,
  type OpenEnvHostOptions,
  openEnvResult,
  startOpenEnvHost,
} from "./openenv-environment.ts";
export {
  type CallResult,
  PythonEnvironmentHost,
  type PythonEnvironmentHostEvents,
  type PythonEnvironmentHostOptions,
  readFunctionDocs,
  type ToolDescriptor,
  WORKER_SCRIPT,
  type WorkerEvent,
} from "./python-environment-host.ts";
export {
  readVerifiersTasks,
  startVerifiersHost,
  VERIFIERS_ADAPTER,
  type VerifiersHostOptions,
  type VerifiersTask,
} from "./verifiers-environment.ts";
