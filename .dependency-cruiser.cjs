// Package boundaries and import cycles, checked by `npm run check:deps` (part of `npm test`).
// Packages: proto, contracts (the shared records), services/kit (service kit), gateway, services/{telemetry,toolkit,tools,rollout,train,judge,cli},
// simulators (rlf-sim: development simulators, never models), test/support (test fixtures). Product code
// is every file of proto, contracts, gateway, services and clients that is not a test file.
const PRODUCT = "^(proto|contracts|gateway|services|clients)/";
const TEST_FILE = "\\.test\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import cycle: split the shared part into its own file.",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-product-to-test-support-or-simulators",
      severity: "error",
      comment:
        "Test fixtures (test/) and the simulators (simulators/, rlf-sim) are never imported by product code; only tests may use them.",
      from: { path: PRODUCT, pathNot: TEST_FILE },
      to: { path: "^(test|simulators)/" },
    },
    {
      name: "no-package-imports-the-cli",
      severity: "error",
      comment:
        "The CLI (services/cli) only parses and composes: no package imports it; shared code lives in the package it belongs to.",
      from: {
        path: "^(proto|contracts|gateway|services/[^/]+|clients|simulators|test/support)/",
        pathNot: "^services/cli/",
      },
      to: { path: "^services/cli/" },
    },
    {
      name: "no-relative-import-across-packages",
      severity: "error",
      comment: "Import another workspace by its package name (@rlfactory/...), never by a relative path.",
      from: { path: "^(proto|contracts|gateway|services/[^/]+|simulators|test/support)/" },
      to: { dependencyTypes: ["local"], dependencyTypesNot: ["aliased-workspace"], pathNot: ["^$1/"] },
    },
    {
      name: "kit-and-proto-stand-alone",
      severity: "error",
      comment: "The service kit and the proto package depend on no other rlfactory package but proto.",
      from: { path: "^(proto|services/kit)/", pathNot: TEST_FILE },
      to: { path: "^(gateway|services|test)/", pathNot: "^services/kit/" },
    },
    {
      name: "contracts-stand-alone",
      severity: "error",
      comment:
        "The contracts (Task, Trajectory, reward errors) are the records every package reads: they depend on no other rlfactory package.",
      from: { path: "^contracts/" },
      to: { path: "^(proto|gateway|services|test)/" },
    },
    {
      name: "no-service-plumbing-from-gateway",
      severity: "error",
      comment:
        "The judge, the training loop, the tools and the kit do not depend on the gateway package; the rollout " +
        "engine uses only its client (@rlfactory/gateway/client). Shared plumbing lives in services/kit.",
      from: { path: "^services/(judge|train|kit|tools|toolkit|telemetry)/" },
      to: { path: "^gateway/" },
    },
    {
      name: "rollout-uses-only-the-gateway-client",
      severity: "error",
      from: { path: "^services/rollout/", pathNot: TEST_FILE },
      to: { path: "^gateway/", pathNot: "^gateway/src/client\\.ts$" },
    },
    {
      name: "services-do-not-import-each-other",
      severity: "error",
      comment: "The gateway, judge and rollout service are separate services: no imports between them.",
      from: { path: "^(gateway|services/judge|services/rollout)/", pathNot: TEST_FILE },
      to: {
        path: "^(gateway|services/judge|services/rollout)/",
        pathNot: ["^$1/", "^gateway/src/client\\.ts$"],
      },
    },
    {
      name: "no-undeclared-dependency",
      severity: "error",
      comment: "Product code imports only packages its own package.json declares as dependencies.",
      from: { path: PRODUCT, pathNot: TEST_FILE },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown", "npm-dev"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "/generated/|^\\.ci/|(^|/)\\.venv/" },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
    },
    tsConfig: { fileName: "tsconfig.json" },
  },
};
