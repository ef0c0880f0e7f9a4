// The deployment files (deploy/compose.yaml, deploy/compose/*, deploy/k8s/*) checked without
// starting anything: the compose file through `docker compose config` (or `docker-compose config`),
// the Kubernetes manifests through the `kubernetes-validate` schema checker (PyPI, schemas bundled,
// works offline), and both against the code: every command is one `rlf` accepts, every port is the
// one the CLI and deploy/local/gateway.yaml use, every config file loads with the service's own
// loader; the bundled tool servers are exactly those of their registry (@rlfactory/tools), on its ports. Without a validator installed the validator test is skipped locally and fails under CI.
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CONSOLE_PORT } from "@rlfactory/console";
import { type GatewayConfig, loadConfigFile } from "@rlfactory/gateway";
import { JUDGE_GRPC_PORT, JUDGE_HTTP_PORT, loadJudgeConfig } from "@rlfactory/judge";
import { loadRolloutConfig } from "@rlfactory/rollout";
import { ROOT } from "@rlfactory/test-support/gateway-harness";
import { BUNDLED_TOOL_SERVER_NAMES, toolServers } from "@rlfactory/tools";
import { afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { SERVICE_NODE_FLAGS } from "../bench/service-node-flags.ts";

const run = promisify(execFile);
const DEPLOY = join(ROOT, "deploy");
const COMPOSE_FILE = join(DEPLOY, "compose.yaml");
const K8S = join(DEPLOY, "k8s");
const RLF = join(ROOT, "services/cli/bin/rlf.js");
const IN_CI = Boolean(process.env.CI);
/** The bundled tool servers and their ports: the registry in services/tools is the one source. */
const TOOLS = BUNDLED_TOOL_SERVER_NAMES;
const TOOL_PORTS: Record<string, number> = Object.fromEntries(TOOLS.map((n) => [n, toolServers[n].port]));

const scratch = mkdtempSync(join(tmpdir(), "rlf-manifests-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// ---- the files, parsed -----------------------------------------------------------------------

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile?: string };
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  network_mode?: string;
  init?: boolean;
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
}
const compose = parseYaml(readFileSync(COMPOSE_FILE, "utf8"), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const service = (name: string): ComposeService => {
  const s = compose.services[name];
  if (!s) throw new Error(`deploy/compose.yaml has no service "${name}"`);
  return s;
};

// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects are checked by the schema validator; here we only walk them.
type K8sObject = any;
const k8sFiles = readdirSync(K8S).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
const k8sObjects: K8sObject[] = k8sFiles.flatMap((f) =>
  parseAllDocuments(readFileSync(join(K8S, f), "utf8")).map((d) => d.toJS()),
);
const k8s = (kind: string, name: string): K8sObject => {
  const found = k8sObjects.find((o) => o.kind === kind && o.metadata?.name === name);
  if (!found) throw new Error(`deploy/k8s has no ${kind} "${name}"`);
  return found;
};
const container = (deployment: string): K8sObject =>
  k8s("Deployment", deployment).spec.template.spec.containers[0];

/** The value after `flag` in an argument list. */
function flagValue(args: readonly string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

/** The URL the gateway config reaches server `name` at (undefined for a stdio server). */
function upstreamUrl(config: GatewayConfig, name: string): string | undefined {
  const transport = config.servers.find((s) => s.name === name)?.transport;
  return transport && (transport.kind === "http" || transport.kind === "sse") ? transport.url : undefined;
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** The defaults a command prints in its help, e.g. `[--grpc-port 50061]`. */
function helpDefault(help: string, flag: string): number {
  const m = new RegExp(`\\[${flag} (\\d+)\\]`).exec(help);
  if (!m?.[1]) throw new Error(`no default for ${flag} in:\n${help}`);
  return Number(m[1]);
}

const localGateway = loadConfigFile(join(DEPLOY, "local/gateway.yaml"));
const rolloutHelp = spawnSync(process.execPath, [RLF, "rollout", "serve", "--help"], {
  encoding: "utf8",
}).stdout;
const ROLLOUT_GRPC_PORT = helpDefault(rolloutHelp, "--grpc-port");
const ROLLOUT_HTTP_PORT = helpDefault(rolloutHelp, "--http-port");

// ---- the validators ----------------------------------------------------------------------------

/** `docker compose` (v2 plugin) or a `docker-compose` binary (v2 standalone or v1), whichever runs. */
function composeCli(): string[] | undefined {
  for (const cli of [["docker", "compose"], ["docker-compose"]]) {
    const [bin, ...pre] = cli as [string, ...string[]];
    if (spawnSync(bin, [...pre, "version"], { stdio: "ignore" }).status === 0) return cli;
  }
  return undefined;
}

function hasKubernetesValidate(): boolean {
  return spawnSync("kubernetes-validate", ["--version"], { stdio: "ignore" }).status === 0;
}

/** A validator test: skipped when the tool is missing, except under CI, where that is a failure. */
function validatorTest(name: string, available: boolean, install: string, body: () => Promise<void>): void {
  if (available || IN_CI) {
    it(name, async () => {
      if (!available)
        throw new Error(`${name}: the validator is not installed (CI must install it: ${install})`);
      await body();
    });
  } else {
    it.skip(`${name} (validator not installed: ${install})`, () => {});
  }
}

// Each `rlf` run loads a service's modules (about 2 s of CPU); eight at once on a loaded 2-core
// machine took over 30 s. Two at a time, each with room to spare.
const RLF_RUNS_TIMEOUT_MS = 240_000;

async function twoAtATime<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  };
  await Promise.all([worker(), worker()]);
}

async function validates(cmd: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await run(cmd, args, { cwd: DEPLOY, timeout: 120_000 });
    return { ok: true, output: stdout + stderr };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${e.stdout ?? ""}${e.stderr ?? ""}${e.message}` };
  }
}

describe("schema validation", () => {
  const cli = composeCli();
  validatorTest(
    "docker compose config accepts deploy/compose.yaml, with every profile, and rejects a broken file",
    cli !== undefined,
    "Debian docker-compose, or the compose v2 plugin",
    async () => {
      const [bin, ...pre] = cli as [string, ...string[]];
      const profiles = ["--profile", "metrics", "--profile", "sim"];
      const good = await validates(bin, [...pre, "-f", COMPOSE_FILE, ...profiles, "config", "-q"]);
      expect(good.ok, good.output).toBe(true);
      // The same validator must refuse what the compose spec forbids, or it proves nothing.
      const broken = join(scratch, "broken-compose.yaml");
      writeFileSync(
        broken,
        "services:\n  gateway:\n    image: rlfactory:dev\n    restart_policy_typo: always\n",
      );
      const bad = await validates(bin, [...pre, "-f", broken, "config", "-q"]);
      expect(bad.ok).toBe(false);
      expect(bad.output).toContain("restart_policy_typo");
    },
  );

  validatorTest(
    "kubernetes-validate --strict accepts every manifest in deploy/k8s and rejects a broken one",
    hasKubernetesValidate(),
    "pip install kubernetes-validate",
    async () => {
      const files = k8sFiles.map((f) => join(K8S, f));
      const good = await validates("kubernetes-validate", ["--strict", "--quiet", ...files]);
      expect(good.ok, good.output).toBe(true);
      const broken = join(scratch, "broken-deployment.yaml");
      writeFileSync(
        broken,
        readFileSync(join(K8S, "gateway.yaml"), "utf8").replace(
          "terminationGracePeriodSeconds",
          "terminationGracePeriod",
        ),
      );
      const bad = await validates("kubernetes-validate", ["--strict", "--quiet", broken]);
      expect(bad.ok).toBe(false);
      expect(bad.output).toContain("terminationGracePeriod");
    },
  );
});

// ---- compose against the code -------------------------------------------------------------------

describe("deploy/compose.yaml matches the code", () => {
  const apps = Object.entries(compose.services).filter(([, s]) => s.image === "rlfactory:dev");

  it("runs every app service from the one image, on the host network, with a health URL and OTLP export", () => {
    expect(apps.map(([n]) => n).sort()).toEqual(
      [...TOOLS, "gateway", "simulated-llm", "judge", "rollout", "console"].sort(),
    );
    for (const [name, s] of apps) {
      expect(s.build, name).toEqual({ context: "..", dockerfile: "deploy/Dockerfile" });
      expect(s.network_mode, name).toBe("host");
      // The image's tini is PID 1; a second init in front of it could not reap for it.
      expect(s.init, name).toBeUndefined();
      expect(s.environment?.RLF_HEALTH_URL, name).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      expect(s.environment?.OTEL_EXPORTER_OTLP_ENDPOINT, name).toBe("http://127.0.0.1:4318");
      expect(s.environment?.OTEL_SERVICE_NAME, name).toMatch(/^rlf-/);
    }
    expect(service("redis").image).toBe("rlfactory-redis:dev");
    expect(service("redis").build?.context).toBe("redis");
  });

  it(
    "gives every command to rlf (or, for the sim profile, rlf-sim) as a command it accepts, with options it knows",
    async () => {
      // Each command runs with one extra, unknown option: rlf's strict parser must get past every
      // real option and stop at that one (an unknown command or option fails differently). A service
      // with its own entrypoint runs under the image's tini and node, a script of the image's /app.
      await twoAtATime(apps, async ([name, s]) => {
        const args = [...(s.command ?? []), "--not-an-rlf-option"];
        const entry = s.entrypoint;
        if (entry) expect(entry.slice(0, 3), name).toEqual(["tini", "--", "node"]);
        const script = entry ? join(ROOT, (entry[3] ?? "").replace(/^\/app\//, "")) : RLF;
        const res = await validates(process.execPath, [script, ...args]);
        expect(res.ok, name).toBe(false);
        expect(res.output, `${name}: rlf ${args.join(" ")}`).toMatch(/Unknown option '--not-an-rlf-option'/);
        expect(res.output, name).not.toMatch(/unknown command/);
      });
    },
    RLF_RUNS_TIMEOUT_MS,
  );

  it("puts the tool servers, the judge and the rollout service on the ports of `npm start` and the CLI", () => {
    for (const tool of TOOLS) {
      const s = service(tool);
      expect(s.command?.slice(0, 2)).toEqual(["tool", tool]);
      expect(Number(flagValue(s.command ?? [], "--http")), tool).toBe(TOOL_PORTS[tool]);
      expect(portOf(s.environment?.RLF_HEALTH_URL ?? ""), tool).toBe(TOOL_PORTS[tool]);
    }
    const judge = service("judge").command ?? [];
    expect(Number(flagValue(judge, "--http-port"))).toBe(JUDGE_HTTP_PORT);
    expect(Number(flagValue(judge, "--grpc-port"))).toBe(JUDGE_GRPC_PORT);
    expect(portOf(service("judge").environment?.RLF_HEALTH_URL ?? "")).toBe(JUDGE_HTTP_PORT);
    const rollout = service("rollout").command ?? [];
    expect(rollout.slice(0, 2)).toEqual(["rollout", "serve"]);
    expect(Number(flagValue(rollout, "--grpc-port"))).toBe(ROLLOUT_GRPC_PORT);
    expect(Number(flagValue(rollout, "--http-port"))).toBe(ROLLOUT_HTTP_PORT);
    expect(portOf(service("rollout").environment?.RLF_HEALTH_URL ?? "")).toBe(ROLLOUT_HTTP_PORT);
    // The console: its own port, reading the gateway's admin API and the rollout service where they listen.
    const consoleArgs = service("console").command ?? [];
    expect(consoleArgs[0]).toBe("console");
    expect(Number(flagValue(consoleArgs, "--port"))).toBe(CONSOLE_PORT);
    expect(portOf(service("console").environment?.RLF_HEALTH_URL ?? "")).toBe(CONSOLE_PORT);
    expect(portOf(flagValue(consoleArgs, "--gateway-admin") ?? "")).toBe(localGateway.admin.port);
    expect(portOf(flagValue(consoleArgs, "--rollout") ?? "")).toBe(ROLLOUT_HTTP_PORT);
  });

  it("mounts each --config file read-only from deploy/compose/, and each loads with its service's loader", async () => {
    const mounted = (name: string): string => {
      const target = flagValue(service(name).command ?? [], "--config");
      const volume = service(name).volumes?.find((v) => v.split(":")[1] === target);
      expect(volume, `${name} mounts ${target}`).toBeDefined();
      const [source, , mode] = (volume ?? "").split(":");
      expect(mode, name).toBe("ro");
      return join(DEPLOY, source ?? "");
    };
    const gateway = loadConfigFile(mounted("gateway"));
    const judge = await loadJudgeConfig(mounted("judge"));
    const rollout = await loadRolloutConfig(mounted("rollout"));

    // The gateway: the same listeners and upstreams as `npm start`, its cache in the stack's Redis.
    expect(gateway.grpc).toMatchObject({ host: localGateway.grpc.host, port: localGateway.grpc.port });
    expect(gateway.admin).toMatchObject({ host: localGateway.admin.host, port: localGateway.admin.port });
    expect(portOf(service("gateway").environment?.RLF_HEALTH_URL ?? "")).toBe(localGateway.admin.port);
    for (const tool of TOOLS) {
      expect(upstreamUrl(gateway, tool), tool).toBe(`http://127.0.0.1:${TOOL_PORTS[tool]}/mcp`);
    }
    const redisPort = Number(flagValue(service("redis").command ?? [], "--port"));
    expect(gateway.cache).toMatchObject({ backend: "redis", redisUrl: `redis://127.0.0.1:${redisPort}` });
    expect(judge.cache).toMatchObject({ backend: "redis", redis_url: `redis://127.0.0.1:${redisPort}` });

    // The rollout service reaches the gateway and the judge where they listen.
    expect(rollout.gateway.address).toBe(`127.0.0.1:${gateway.grpc.port}`);
    expect(rollout.judge?.address).toBe(`127.0.0.1:${JUDGE_GRPC_PORT}`);
    // ... and the simulated inference server of the `sim` profile stands where it looks for vLLM.
    const sim = service("simulated-llm").command ?? [];
    expect(rollout.inference.urls.map(portOf)).toContain(Number(flagValue(sim, "--port")));
  });

  it("starts the gateway after Redis and every tool server, and the rollout service after the gateway and judge", () => {
    const healthy = (name: string) => Object.keys(service(name).depends_on ?? {}).sort();
    expect(healthy("gateway")).toEqual(["redis", ...TOOLS].sort());
    expect(healthy("rollout")).toEqual(["gateway", "judge"]);
    expect(healthy("console")).toEqual(["gateway", "rollout"]);
    for (const s of Object.values(compose.services))
      for (const dep of Object.values(s.depends_on ?? {})) expect(dep.condition).toBe("service_healthy");
  });
});

// ---- Kubernetes against the code ----------------------------------------------------------------

describe("deploy/k8s matches the code", () => {
  it("lists exactly the manifest files in kustomization.yaml", () => {
    const kustomization = parseYaml(readFileSync(join(K8S, "kustomization.yaml"), "utf8")) as {
      resources: string[];
    };
    expect([...kustomization.resources].sort()).toEqual([...k8sFiles].sort());
  });

  it("runs every pod as non-root with resource requests, limits and probes on declared ports", () => {
    for (const d of k8sObjects.filter((o) => o.kind === "Deployment")) {
      const name = d.metadata.name;
      const pod = d.spec.template.spec;
      expect(d.spec.template.metadata.labels, name).toMatchObject(d.spec.selector.matchLabels);
      expect(pod.securityContext.runAsNonRoot, name).toBe(true);
      expect(pod.securityContext.runAsUser, name).toBeGreaterThan(0);
      for (const c of pod.containers) {
        expect(c.securityContext.allowPrivilegeEscalation, name).toBe(false);
        expect(c.securityContext.capabilities.drop, name).toEqual(["ALL"]);
        expect(c.resources.requests, name).toEqual(expect.objectContaining({ cpu: expect.anything() }));
        expect(c.resources.limits, name).toEqual(expect.objectContaining({ memory: expect.anything() }));
        expect(c.readinessProbe, name).toBeDefined();
        expect(c.livenessProbe, name).toBeDefined();
        const ports = new Map<string | number, number>(
          c.ports.flatMap((p: K8sObject) => [
            [p.name, p.containerPort],
            [p.containerPort, p.containerPort],
          ]),
        );
        for (const probe of [c.startupProbe, c.readinessProbe, c.livenessProbe].filter(Boolean)) {
          const port = probe.httpGet?.port ?? probe.grpc?.port ?? probe.tcpSocket?.port;
          if (port !== undefined) expect(ports.has(port), `${name} probe port ${port}`).toBe(true);
        }
        // A Service of the same name exposes the container's ports by name.
        const svc = k8s("Service", name);
        expect(svc.spec.selector).toEqual(d.spec.selector.matchLabels);
        for (const p of svc.spec.ports)
          expect(ports.has(p.targetPort), `${name} service ${p.name}`).toBe(true);
      }
    }
  });

  it(
    "uses the CLI's ports and real rlf commands, and probes each service's health endpoint",
    async () => {
      for (const tool of TOOLS) {
        const c = container(tool);
        expect(c.args.slice(0, 2)).toEqual(["tool", tool]);
        expect(Number(flagValue(c.args, "--http")), tool).toBe(TOOL_PORTS[tool]);
        expect(c.readinessProbe.httpGet.path).toBe("/healthz");
      }
      expect(Number(flagValue(container("judge").args, "--http-port"))).toBe(JUDGE_HTTP_PORT);
      expect(Number(flagValue(container("judge").args, "--grpc-port"))).toBe(JUDGE_GRPC_PORT);
      expect(container("rollout").args.slice(0, 2)).toEqual(["rollout", "serve"]);
      expect(Number(flagValue(container("rollout").args, "--grpc-port"))).toBe(ROLLOUT_GRPC_PORT);
      expect(Number(flagValue(container("rollout").args, "--http-port"))).toBe(ROLLOUT_HTTP_PORT);
      expect(container("gateway").startupProbe.httpGet.path).toBe("/readyz");
      expect(container("gateway").livenessProbe.httpGet.path).toBe("/healthz");
      expect(container("gateway").readinessProbe.grpc.port).toBe(localGateway.grpc.port);

      // The console: its port, the gateway's admin API and the rollout service at their Services.
      const consoleArgs: string[] = container("console").args;
      expect(consoleArgs[0]).toBe("console");
      expect(Number(flagValue(consoleArgs, "--port"))).toBe(CONSOLE_PORT);
      expect(flagValue(consoleArgs, "--gateway-admin")).toBe(`http://gateway:${localGateway.admin.port}`);
      expect(flagValue(consoleArgs, "--rollout")).toBe(`http://rollout:${ROLLOUT_HTTP_PORT}`);
      expect(container("console").readinessProbe.httpGet.path).toBe("/healthz");

      const apps = ["gateway", "judge", "rollout", "console", ...TOOLS].map(
        (n) => [n, container(n)] as const,
      );
      await twoAtATime(apps, async ([name, c]) => {
        expect(c.image, name).toBe("rlfactory:dev");
        const res = await validates(process.execPath, [RLF, ...c.args, "--not-an-rlf-option"]);
        expect(res.output, `${name}: rlf ${c.args.join(" ")}`).toMatch(
          /Unknown option '--not-an-rlf-option'/,
        );
      });
    },
    RLF_RUNS_TIMEOUT_MS,
  );

  it("has ConfigMaps that load with the services' own loaders and point at the Services", async () => {
    const configFile = (configMap: string, key: string): string => {
      const path = join(scratch, key);
      writeFileSync(path, k8s("ConfigMap", configMap).data[key]);
      return path;
    };
    const gateway = loadConfigFile(configFile("gateway-config", "gateway.yaml"));
    const judge = await loadJudgeConfig(configFile("judge-config", "judge.yaml"));
    const rollout = await loadRolloutConfig(configFile("rollout-config", "rollout.yaml"));
    expect(gateway.grpc).toMatchObject({ host: "0.0.0.0", port: localGateway.grpc.port });
    expect(gateway.admin).toMatchObject({ host: "0.0.0.0", port: localGateway.admin.port });
    for (const tool of TOOLS) {
      const svcPort = k8s("Service", tool).spec.ports[0].port;
      expect(upstreamUrl(gateway, tool), tool).toBe(`http://${tool}:${svcPort}/mcp`);
      expect(svcPort, tool).toBe(TOOL_PORTS[tool]);
    }
    const redisPort = k8s("Service", "redis").spec.ports[0].port;
    expect(gateway.cache).toMatchObject({ backend: "redis", redisUrl: `redis://redis:${redisPort}` });
    expect(judge.cache).toMatchObject({ backend: "redis", redis_url: `redis://redis:${redisPort}` });
    expect(rollout.gateway.address).toBe(`gateway:${localGateway.grpc.port}`);
    expect(rollout.judge?.address).toBe(`judge:${JUDGE_GRPC_PORT}`);
    // Each Deployment mounts the ConfigMap its --config names.
    for (const [deployment, configMap] of [
      ["gateway", "gateway-config"],
      ["judge", "judge-config"],
      ["rollout", "rollout-config"],
    ] as const) {
      const pod = k8s("Deployment", deployment).spec.template.spec;
      const volume = pod.volumes.find((v: K8sObject) => v.configMap?.name === configMap);
      const mount = pod.containers[0].volumeMounts.find((m: K8sObject) => m.name === volume?.name);
      expect(flagValue(pod.containers[0].args, "--config"), deployment).toBe(
        `${mount?.mountPath}/${Object.keys(k8s("ConfigMap", configMap).data)[0]}`,
      );
    }
  });
});

describe("deploy/k8s runs the console beyond loopback, behind keys", () => {
  const c = () => container("console");
  const env = (name: string) => c().env.find((e: K8sObject) => e.name === name);

  it("binds 0.0.0.0 with --api-keys-env from a Secret that must exist (no key, no console)", () => {
    expect(flagValue(c().args, "--host")).toBe("0.0.0.0");
    const keys = env(flagValue(c().args, "--api-keys-env") ?? "");
    expect(keys?.valueFrom?.secretKeyRef).toMatchObject({ name: "console-api-keys" });
    expect(keys?.valueFrom?.secretKeyRef?.optional ?? false).toBe(false);
  });

  it("sends the gateway a key from an optional Secret (--gateway-api-key-env)", () => {
    const key = env(flagValue(c().args, "--gateway-api-key-env") ?? "");
    expect(key?.valueFrom?.secretKeyRef).toMatchObject({ name: "console-gateway-api-key", optional: true });
  });

  it("reads the runs it is given read-only, from the folder --runs names, on a read-only root", () => {
    const mount = c().volumeMounts.find((m: K8sObject) => m.mountPath === flagValue(c().args, "--runs"));
    expect(mount?.readOnly).toBe(true);
    expect(c().securityContext.readOnlyRootFilesystem).toBe(true);
  });

  it("is reachable on its HTTP port only, where the cluster enforces network policies", () => {
    const policies = k8sObjects.filter(
      (o) =>
        o.kind === "NetworkPolicy" &&
        o.spec.podSelector.matchLabels?.["app.kubernetes.io/name"] === "console",
    );
    expect(policies.map((p) => p.spec.ingress)).toEqual([[{ ports: [{ port: CONSOLE_PORT }] }]]);
    expect(k8s("Service", "console").spec.ports.map((p: K8sObject) => p.port)).toEqual([CONSOLE_PORT]);
  });
});

// ---- the bundled tool servers against their registry ----------------------------------------------

describe("the bundled tool servers are those of their registry, on its ports, everywhere", () => {
  const sorted = [...TOOLS].sort();

  it("deploy/compose.yaml runs each one (and no other) as `rlf tool NAME --http PORT`, the gateway after it", () => {
    const tools = Object.entries(compose.services).filter(([, s]) => s.command?.[0] === "tool");
    expect(tools.map(([name]) => name).sort()).toEqual(sorted);
    for (const [name, s] of tools) {
      expect(s.command?.[1], name).toBe(name);
      expect(Number(flagValue(s.command ?? [], "--http")), name).toBe(TOOL_PORTS[name]);
      expect(portOf(s.environment?.RLF_HEALTH_URL ?? ""), name).toBe(TOOL_PORTS[name]);
      expect(Object.keys(service("gateway").depends_on ?? {}), name).toContain(name);
    }
  });

  it("deploy/k8s has one tool-NAME.yaml per server (and no other), its container and Service on the port", () => {
    const deployments = k8sObjects.filter(
      (o) => o.kind === "Deployment" && o.spec.template.spec.containers[0].args?.[0] === "tool",
    );
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(sorted);
    expect(k8sFiles.filter((f) => f.startsWith("tool-")).sort()).toEqual(sorted.map((n) => `tool-${n}.yaml`));
    for (const name of TOOLS) {
      const c = container(name);
      expect(c.args.slice(0, 2), name).toEqual(["tool", name]);
      expect(Number(flagValue(c.args, "--http")), name).toBe(TOOL_PORTS[name]);
      expect(
        c.ports.map((p: K8sObject) => p.containerPort),
        name,
      ).toEqual([TOOL_PORTS[name]]);
      expect(
        k8s("Service", name).spec.ports.map((p: K8sObject) => p.port),
        name,
      ).toEqual([TOOL_PORTS[name]]);
    }
  });

  it("every gateway config reaches each one (and no other) at its port", () => {
    const k8sGatewayFile = join(scratch, "k8s-gateway.yaml");
    writeFileSync(k8sGatewayFile, k8s("ConfigMap", "gateway-config").data["gateway.yaml"]);
    const configs: [string, GatewayConfig, (name: string) => string][] = [
      ["deploy/local/gateway.yaml", localGateway, () => "127.0.0.1"],
      [
        "deploy/compose/gateway.yaml",
        loadConfigFile(join(DEPLOY, "compose/gateway.yaml")),
        () => "127.0.0.1",
      ],
      ["deploy/k8s/gateway-config.yaml", loadConfigFile(k8sGatewayFile), (name) => name],
    ];
    for (const [file, config, host] of configs) {
      expect(config.servers.map((s) => s.name).sort(), file).toEqual(sorted);
      for (const name of TOOLS) {
        expect(upstreamUrl(config, name), `${file}: ${name}`).toBe(
          `http://${host(name)}:${TOOL_PORTS[name]}/mcp`,
        );
      }
    }
  });
});

describe("deploy/Dockerfile runs every service with the benchmarks' Node flags", () => {
  it("starts rlf with SERVICE_NODE_FLAGS, which the engine-turn and episodes benchmarks give the processes they stand in for", () => {
    const dockerfile = readFileSync(join(DEPLOY, "Dockerfile"), "utf8");
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(entrypoint).toBeDefined();
    const argv = JSON.parse(entrypoint!) as string[];
    const node = argv.indexOf("node");
    const rlf = argv.indexOf("/app/services/cli/bin/rlf.js");
    expect(node).toBeGreaterThanOrEqual(0);
    expect(argv.slice(node + 1, rlf)).toEqual([...SERVICE_NODE_FLAGS]);
  });
});

describe("deploy/Dockerfile installs every workspace", () => {
  it("copies the manifest of each workspace in the root package.json before npm install", () => {
    const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { workspaces: string[] };
    const dockerfile = readFileSync(join(DEPLOY, "Dockerfile"), "utf8");
    const beforeInstall = dockerfile.slice(0, dockerfile.indexOf("RUN npm install"));
    // npm refuses the install (ELSPROBLEMS) when a workspace of the lock has no manifest in the image.
    const missing = root.workspaces.filter((w) => !beforeInstall.includes(`COPY ${w}/package.json ${w}/`));
    expect(missing).toEqual([]);
  });
});
