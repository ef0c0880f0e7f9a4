// The shipped FTRL example (examples/ftrl-hotpotqa): the bundle reads (every digest and the hash check),
// says it was built with the scripted fixture, and its task file and summary name its hash; and
// rebuilding it as its README says — `rlf-sim factory --mix-structures` and `rlf env build` with
// the folder's build.yaml — gives the same bytes, so the shipped files never drift from the code.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { readBundle } from "@rlfactory/environments";
import { RLF, RLF_SIM, ROOT, stopChild } from "@rlfactory/test-support/gateway-harness";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";

const EXAMPLE = join(ROOT, "examples/ftrl-hotpotqa");

function haveBubblewrap(): boolean {
  const probe = spawnSync("bwrap", [
    ...["--unshare-all", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib"],
    ...["--symlink", "usr/lib64", "/lib64", "/usr/bin/python3", "-c", "pass"],
  ]);
  if (probe.status === 0) return true;
  const message = `the FTRL example rebuild: bubblewrap cannot start a sandbox here (${probe.error?.message ?? probe.stderr?.toString().trim()})`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
}

const lines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("examples/ftrl-hotpotqa", () => {
  it("is a bundle of 20 HotpotQA tasks labelled as built with the scripted fixture", async () => {
    const bundle = await readBundle(join(EXAMPLE, "bundle"));
    expect(bundle.manifest.source).toMatchObject({
      kind: "rlf-env-build",
      model: "factory-chat-fixture",
      fixture: true,
    });
    expect(bundle.tasks).toHaveLength(20);
    const structures = new Set(bundle.tasks.map((t) => t.complexity?.structure));
    expect([...structures].sort()).toEqual([
      "multi_hop",
      "parallel_multi_hop",
      "parallel_single_hop",
      "single_hop",
    ]);
    // each task carries its ground-truth calls, one per sub-answer of its unsolved set
    for (const t of bundle.tasks) {
      const subAnswers = Object.values(t.unsolved_set ?? {}).flat().length;
      expect(t.actions, t.id).toHaveLength(subAnswers);
      for (const a of t.actions ?? []) expect(t.tools).toContain(a.name);
    }
    const tasks = lines(join(EXAMPLE, "tasks.jsonl"));
    expect(tasks.map((t) => t.id)).toEqual(bundle.tasks.map((t) => t.id));
    for (const t of tasks) expect(t.extra_info).toMatchObject({ bundle_hash: bundle.hash });
    const summary = JSON.parse(readFileSync(join(EXAMPLE, "summary.json"), "utf8"));
    expect(summary.bundle).toMatchObject({ hash: bundle.hash, tasks: 20 });
    expect(readFileSync(join(EXAMPLE, "README.md"), "utf8")).toMatch(/scripted test fixture/);
  });

  describe.skipIf(!haveBubblewrap())("rebuilt as its README says", () => {
    const work = mkdtempSync(join(tmpdir(), "rlf-ftrl-example-"));
    let fixture: ChildProcess | undefined;
    afterAll(async () => {
      if (fixture) {
        fixture.kill("SIGTERM");
        await stopChild(fixture, 10_000);
      }
      rmSync(work, { recursive: true, force: true });
    });

    it("gives the shipped bundle, task file and summary byte for byte", async () => {
      const readme = readFileSync(join(EXAMPLE, "README.md"), "utf8");
      const serve = /^npx rlf-sim factory .*$/m.exec(readme)?.[0];
      const build = /^npx rlf env build --config (\S+) --out (\S+)$/m.exec(readme);
      expect(serve).toBe("npx rlf-sim factory --port 8399 --mix-structures");
      expect(build?.[1]).toBe("examples/ftrl-hotpotqa/build.yaml");

      // the documented fixture command, on a free port
      fixture = spawn(process.execPath, [RLF_SIM, "factory", "--port", "0", "--mix-structures"], {
        cwd: ROOT,
        stdio: ["ignore", "ignore", "pipe"],
      });
      let said = "";
      const [baseUrl] = await new Promise<string[]>((resolve, reject) => {
        fixture?.stderr?.on("data", (d) => {
          said += d;
          const url = /listening on (http:\/\/\S+\/v1)/.exec(said)?.[1];
          if (url) resolve([url]);
        });
        fixture?.on("exit", () => reject(new Error(`rlf-sim factory exited: ${said}`)));
      });

      // the folder's build.yaml, pointed at that port (the endpoint's address is not part of the bundle)
      const config = parseYaml(readFileSync(join(EXAMPLE, "build.yaml"), "utf8"));
      expect(config.endpoint.base_url).toBe("http://127.0.0.1:8399/v1");
      config.endpoint.base_url = baseUrl;
      config.input.tasks = config.input.tasks.map((t: { path: string }) => ({
        ...t,
        path: join(EXAMPLE, t.path),
      }));
      const configPath = join(work, "build.yaml");
      writeFileSync(configPath, stringifyYaml(config));
      const out = join(work, "out");
      const child = spawn(process.execPath, [RLF, "env", "build", "--config", configPath, "--out", out], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let log = "";
      child.stdout?.on("data", (d) => {
        log += d;
      });
      child.stderr?.on("data", (d) => {
        log += d;
      });
      const [code] = await once(child, "close");
      expect(code, log).toBe(0);

      const shipped = await readBundle(join(EXAMPLE, "bundle"));
      const rebuilt = await readBundle(join(out, "bundle"));
      expect(rebuilt.hash).toBe(shipped.hash);
      const files = filesUnder(join(EXAMPLE, "bundle"));
      expect(filesUnder(join(out, "bundle"))).toEqual(files);
      for (const f of [...files.map((x) => join("bundle", x)), "tasks.jsonl", "summary.json"])
        expect(readFileSync(join(out, f), "utf8"), relative(ROOT, join(EXAMPLE, f))).toBe(
          readFileSync(join(EXAMPLE, f), "utf8"),
        );
    }, 120_000);
  });
});
