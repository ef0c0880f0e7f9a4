// Package boundaries and import cycles, checked by `npm run check:deps` (part of `npm test`).
// Packages: proto, contracts (the shared records), clients (the service clients), services/kit (service kit), gateway,
// services/{telemetry,toolkit,tools,rewards,rollout,train,judge,cli}, simulators (rlf-sim: development
// simulators, never models), test/support (test fixtures). Product code is every file of proto,
// contracts, clients, gateway and services that is not a test file.
const PRODUCT = "^(proto|contracts|clients|gateway|services)/";
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
      from: { pathNot: "^services/cli/" },
      to: { path: "^services/cli/" },
    },
    {
      name: "fixtures-only-for-tests",
      severity: "error",
      comment:
        "A package's __fixtures__ folder holds test fixtures that sit beside its tests: only test files (and other fixtures) import it.",
      from: { path: PRODUCT, pathNot: [TEST_FILE, "/__fixtures__/"] },
      to: { path: "/__fixtures__/" },
    },
    {
      name: "no-relative-import-across-packages",
      severity: "error",
      comment: "Import another workspace by its package name (@rlfactory/...), never by a relative path.",
      from: { path: "^(proto|contracts|clients|gateway|services/[^/]+|simulators|test/support)/" },
      to: { dependencyTypes: ["local"], dependencyTypesNot: ["aliased-workspace"], pathNot: ["^$1/"] },
    },
    {
      name: "kit-and-proto-stand-alone",
      severity: "error",
      comment: "The service kit and the proto package depend on no other rlfactory package but proto.",
      from: { path: "^(proto|services/kit)/", pathNot: TEST_FILE },
      to: { path: "^(clients|gateway|services|test)/", pathNot: "^services/kit/" },
    },
    {
      name: "kit-tests-use-only-the-kit",
      severity: "error",
      comment:
        "The kit's tests exercise the kit with node and real components (redis-server), not the packages above it.",
      from: { path: "^services/kit/.*\\.test\\.ts$" },
      to: { path: "^(proto|contracts|clients|gateway|services|test)/", pathNot: "^services/kit/" },
    },
    {
      name: "rewards-stand-alone",
      severity: "error",
      comment:
        "The reward language (services/rewards) is graded the same by the judge and the rollout: it depends on no other rlfactory package.",
      from: { path: "^services/rewards/", pathNot: TEST_FILE },
      to: { path: "^(proto|contracts|clients|gateway|services|test)/", pathNot: "^services/rewards/" },
    },
    {
      name: "contracts-stand-alone",
      severity: "error",
      comment:
        "The contracts (Task, Trajectory, reward errors) are the records every package reads: they depend on no other rlfactory package.",
      from: { path: "^contracts/" },
      to: { path: "^(proto|clients|gateway|services|test)/" },
    },
    {
      name: "no-service-plumbing-from-gateway",
      severity: "error",
      comment:
        "The judge, the tools and the kit do not depend on the gateway package. Shared plumbing lives in services/kit.",
      from: { path: "^services/(judge|kit|tools|toolkit|telemetry)/" },
      to: { path: "^gateway/" },
    },
    {
      name: "engine-factory-train-use-the-clients",
      severity: "error",
      comment:
        "The rollout engine, the factory and the training loop reach the gateway through @rlfactory/clients, " +
        "never through the gateway server package (fastify, ajv, the MCP client).",
      from: { path: "^services/(rollout|factory|train)/" },
      to: { path: "^gateway/" },
    },
    {
      name: "clients-have-no-server-dependencies",
      severity: "error",
      comment:
        "@rlfactory/clients is what callers load: it depends on proto, contracts and telemetry, never on a server package.",
      from: { path: "^clients/" },
      to: { path: "^(gateway|services)/", pathNot: "^services/telemetry/" },
    },
    {
      name: "services-do-not-import-each-other",
      severity: "error",
      comment: "The gateway, judge and rollout service are separate services: no imports between them.",
      from: { path: "^(gateway|services/judge|services/rollout)/", pathNot: TEST_FILE },
      to: {
        path: "^(gateway|services/judge|services/rollout)/",
        pathNot: "^$1/",
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
