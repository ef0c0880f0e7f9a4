// Environment bundles: one directory holding an environment's tools, their Python code, its initial
// database and its tasks, with a manifest of digests and one hash (services/environments/README.md).
export { BundleError } from "./bundle-error.ts";
export { bundleHash, fileDigest } from "./bundle-hash.ts";
export {
  BUNDLE_CLASS,
  BUNDLE_ENV_SCRIPT,
  type BundleHostOptions,
  bundleResult,
  bundleState,
  startBundleHost,
} from "./bundle-host.ts";
export {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_VERSION,
  type Bundle,
  type BundleAction,
  BundleActionSchema,
  type BundleContent,
  type BundleForm,
  type BundleManifest,
  BundleManifestSchema,
  type BundleSource,
  BundleSourceSchema,
  type BundleTask,
  BundleTaskSchema,
  type BundleTool,
  BundleToolSchema,
  type Complexity,
  ComplexitySchema,
} from "./bundle-schema.ts";
export { JsonText } from "./json-text.ts";
export { readBundle } from "./read-bundle.ts";
export { bundleManifest, rlfactoryVersion, writeBundle } from "./write-bundle.ts";
