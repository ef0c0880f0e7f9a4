// The rlfactory images run as containers for the container e2e test, with testcontainers: every
// container on the host network (each service on its own loopback port), labelled so that a crashed
// run's leftovers can be found and removed, and registered so that teardown stops all of them.
// Plus the few `docker` CLI calls testcontainers has no API for (kill, ps by label, top).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { waitFor } from "@rlfactory/test-support/wait-for";
import { GenericContainer, type StartedTestContainer, Wait } from "testcontainers";
import { z } from "zod";

const run = promisify(execFile);

/** The one image every service runs from (deploy/build-images.sh builds it). */
export const RLF_IMAGE = process.env.RLF_IMAGE ?? "rlfactory:dev";
/** The Redis image (deploy/redis/Dockerfile). */
export const REDIS_IMAGE = process.env.REDIS_IMAGE ?? "rlfactory-redis:dev";
/** Set on every container this test starts. */
export const TEST_LABEL = { key: "rlfactory.test", value: "containers-e2e" } as const;

// testcontainers on this kind of machine: no reaper container (it would need an image pull and a
// bridge network), and the daemon's services are reached on loopback.
process.env.TESTCONTAINERS_RYUK_DISABLED ??= "true";
process.env.TESTCONTAINERS_HOST_OVERRIDE ??= "127.0.0.1";

/** Runs the docker CLI; rejects with its stderr. */
export async function docker(args: readonly string[], timeoutMs = 30_000): Promise<string> {
  try {
    const { stdout } = await run("docker", [...args], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`docker ${args.join(" ")} failed: ${e.stderr?.trim() || e.message}`);
  }
}

/** Whether a Docker daemon answers. */
export async function dockerAvailable(): Promise<boolean> {
  return docker(["info", "--format", "{{.ServerVersion}}"], 15_000).then(
    () => true,
    () => false,
  );
}

/** Fails with the command that builds them when an image is missing (they cannot be pulled here). */
export async function requireImages(images: readonly string[]): Promise<void> {
  for (const image of images) {
    await docker(["image", "inspect", "--format", "{{.Id}}", image]).catch(() => {
      throw new Error(
        `image ${image} not found: build it with deploy/build-images.sh (after .ci/docker-setup.sh)`,
      );
    });
  }
}

/** Ids of the running containers carrying TEST_LABEL. */
export async function labelledContainers(): Promise<string[]> {
  const out = await docker(["ps", "-q", "--filter", `label=${TEST_LABEL.key}=${TEST_LABEL.value}`]);
  return out.split("\n").filter(Boolean);
}

/** Force-removes every container (running or not) carrying TEST_LABEL. */
export async function removeLabelledContainers(): Promise<void> {
  const out = await docker(["ps", "-aq", "--filter", `label=${TEST_LABEL.key}=${TEST_LABEL.value}`]);
  const ids = out.split("\n").filter(Boolean);
  if (ids.length > 0) await docker(["rm", "-f", "-v", ...ids], 60_000);
}

type HealthTest = ["CMD-SHELL", string] | ["CMD", ...string[]];

/** The test command of an image's HEALTHCHECK, if it has one. */
async function imageHealthTest(image: string): Promise<HealthTest | undefined> {
  const out = await docker(["image", "inspect", "--format", "{{json .Config.Healthcheck}}", image]);
  const parsed = z
    .object({ Test: z.array(z.string()).optional() })
    .nullable()
    .parse(JSON.parse(out));
  const test = parsed?.Test;
  if (test === undefined || test.length < 2) return undefined;
  const [kind, ...rest] = test;
  if (kind === "CMD-SHELL") return ["CMD-SHELL", rest.join(" ")];
  if (kind === "CMD") return ["CMD", ...rest];
  return undefined; // NONE: disabled
}

export interface ContainerProcess {
  pid: number;
  /** ps STAT: a leading Z is a zombie. */
  stat: string;
  command: string;
}

/** The processes inside a container, as the daemon sees them (`docker top`). */
export async function containerProcesses(id: string): Promise<ContainerProcess[]> {
  const init = Number((await docker(["inspect", "-f", "{{.State.Pid}}", id])).trim());
  const out = await docker(["top", id, "-o", "pid,ppid,stat,args"]);
  const all = out
    .split("\n")
    .slice(1)
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [pid = "", ppid = "", stat = "", ...command] = line.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), stat, command: command.join(" ") };
    });
  // Only the container's init and its descendants: `docker exec` processes (the HEALTHCHECK probe,
  // every few seconds) hang off the runtime, not off init, and come and go between two snapshots.
  const tree = new Set([init]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (!tree.has(p.pid) && tree.has(p.ppid)) {
        tree.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => tree.has(p.pid)).map(({ pid, stat, command }) => ({ pid, stat, command }));
}

/**
 * GenericContainer plus `--security-opt systempaths=unconfined`, which the docker CLI (not the
 * daemon) translates into empty masked and read-only /proc paths.
 */
class ServiceContainer extends GenericContainer {
  withSecurityOptions(options: readonly string[]): this {
    const daemonOptions = options.filter((o) => o !== "systempaths=unconfined");
    if (daemonOptions.length < options.length) {
      this.hostConfig.MaskedPaths = [];
      this.hostConfig.ReadonlyPaths = [];
    }
    return daemonOptions.length > 0 ? this.withSecurityOpt(...daemonOptions) : this;
  }
}

export interface ServiceSpec {
  /** A short name, also the container's name suffix. */
  name: string;
  image: string;
  /** Default: the image's ENTRYPOINT. */
  entrypoint?: string[];
  /** Default: the image's CMD. */
  command?: string[];
  env?: Record<string, string>;
  /** Read-only bind mounts: host path → container path. */
  mounts?: Record<string, string>;
  /** `docker run --security-opt` values. */
  securityOpt?: string[];
  /** Resolves once the service answers (polled after the container started). */
  ready(): Promise<boolean>;
}

export interface RunningService {
  spec: ServiceSpec;
  container: StartedTestContainer;
  id: string;
}

/** The containers one test file started, stopped together (in reverse order) by stopAll. */
export class ServiceContainers {
  readonly #running = new Map<string, RunningService>();
  /** Starts under way: stopAll waits for them, so that a failed sibling start leaks nothing. */
  readonly #starting = new Set<Promise<RunningService>>();
  readonly #prefix: string;

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  get(name: string): RunningService {
    const s = this.#running.get(name);
    if (!s) throw new Error(`no container named ${name} was started`);
    return s;
  }

  all(): RunningService[] {
    return [...this.#running.values()];
  }

  /** Starts one service container and waits until `spec.ready()` (or fails with its logs). */
  async start(spec: ServiceSpec, timeoutMs = 60_000): Promise<RunningService> {
    let builder = new ServiceContainer(spec.image)
      .withName(`${this.#prefix}-${spec.name}`)
      .withNetworkMode("host")
      .withLabels({ [TEST_LABEL.key]: TEST_LABEL.value, "rlfactory.service": spec.name })
      .withEnvironment(spec.env ?? {})
      .withBindMounts(
        Object.entries(spec.mounts ?? {}).map(([source, target]) => ({
          source,
          target,
          mode: "ro" as const,
        })),
      )
      .withStartupTimeout(timeoutMs);
    // The image's own HEALTHCHECK, probed every second instead of at the image's interval; no
    // ports are published on the host network, so without one there is nothing to wait on here.
    const healthTest = await imageHealthTest(spec.image);
    builder =
      healthTest === undefined
        ? builder.withWaitStrategy(Wait.forListeningPorts())
        : builder
            .withHealthCheck({
              test: healthTest,
              interval: 1_000,
              timeout: 5_000,
              retries: 3,
              startPeriod: 60_000,
            })
            .withWaitStrategy(Wait.forHealthCheck());
    if (spec.entrypoint) builder = builder.withEntrypoint(spec.entrypoint);
    if (spec.command) builder = builder.withCommand(spec.command);
    if (spec.securityOpt) builder = builder.withSecurityOptions(spec.securityOpt);
    const starting = builder.start().then((container) => {
      const started = { spec, container, id: container.getId() };
      this.#running.set(spec.name, started);
      return started;
    });
    this.#starting.add(starting);
    const service = await starting.finally(() => this.#starting.delete(starting));
    await this.waitReady(spec.name, timeoutMs);
    return service;
  }

  /** Polls the service's readiness; on timeout the error carries the container's state and log tail. */
  async waitReady(name: string, timeoutMs = 60_000): Promise<void> {
    const { spec, id } = this.get(name);
    try {
      await waitFor(() => spec.ready(), timeoutMs, `${spec.name} to be ready`);
    } catch (error) {
      const state = await docker([
        "inspect",
        "--format",
        "{{.State.Status}} exit={{.State.ExitCode}}",
        id,
      ]).catch((e: Error) => e.message);
      const logs = await docker(["logs", "--tail", "40", id]).catch((e: Error) => e.message);
      throw new Error(`${(error as Error).message}; container ${state.trim()}; logs:\n${logs}`);
    }
  }

  /** SIGKILLs a service's container (`docker kill`), as a crash would. */
  async kill(name: string): Promise<void> {
    await docker(["kill", "--signal", "KILL", this.get(name).id]);
  }

  /** Starts a killed service's container again (same command, same port) and waits until ready. */
  async restart(name: string, timeoutMs = 60_000): Promise<void> {
    await docker(["start", this.get(name).id]);
    await this.waitReady(name, timeoutMs);
  }

  /** Removes the container a crashed earlier run left under `name` (it would hold the name and port). */
  async removeLeftover(name: string): Promise<void> {
    await docker(["rm", "-f", "-v", `${this.#prefix}-${name}`]).catch(() => undefined);
  }

  /** Stops (SIGTERM, then SIGKILL after 5 s) and removes every container started or being started. */
  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.#starting]);
    const services = [...this.#running.values()];
    this.#running.clear();
    await Promise.all(
      services.map((s) =>
        s.container
          .stop({ timeout: 5_000, remove: true })
          .catch(() => docker(["rm", "-f", s.id]))
          .catch(() => undefined),
      ),
    );
  }
}

/** `fetch(url).ok`, false on a connection error. */
export async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}
