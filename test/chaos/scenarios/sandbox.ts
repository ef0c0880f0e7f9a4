// Hostile programs against the code tool server's sandbox, over its SandboxFusion `POST /run_code` on
// loopback: memory through every channel (memfd, tmpfs, shared memory, children; the rise of host
// memory watched from the host), limits a caller tries to raise, fork bombs, processes left running,
// the network, /proc and host files, each system call of the seccomp filter, time and output, and a
// foreign Host header. A probe is contained when the sandbox held it (its own check), nothing of the
// run was left running afterwards, and the server went on serving.
import { execFileSync } from "node:child_process";
import { request } from "node:http";
import { watchHostMemory } from "@rlfactory/test-support/host-memory";
import { MEMORY_HOGS } from "@rlfactory/test-support/sandbox-memory-hogs";
import { createCodeServer } from "@rlfactory/tools";
import { type ChaosCheck, type ChaosScenario, check, emptyTallies } from "../scenario.ts";
import { freeUidRange } from "../uid-range.ts";

/** The uids the scenario's three servers use (UID_BASE + 0, + 10, + 20, each CONCURRENCY slots). */
const UID_RANGE = 30;
const CONCURRENCY = 2;
const LIMIT_MB = 256;
/** What else may move the host's shared memory meanwhile (other processes of the machine). */
const SLACK_MB = 16;
const MIB = 1024 * 1024;
const EPERM = 1;

interface Answer {
  /** HTTP status of /run_code. */
  http: number;
  /** Our run status, read back from SandboxFusion's shape (undefined when nothing ran). */
  status?: string;
  stdout: string;
  stderr: string;
  /** Largest rise of host memory while it ran, MiB (memory probes only). */
  riseMb?: number;
}

interface Probe {
  readonly name: string;
  readonly kind: "memory" | "limits" | "processes" | "network" | "files" | "seccomp" | "time" | "http";
  /** Run in bounded mode too. */
  readonly bounded?: boolean;
  readonly body?: Record<string, unknown>;
  /** Sent with this Host header instead of the server's own. */
  readonly host?: string;
  /** Watch host memory while it runs. */
  readonly watchMemory?: boolean;
  /** Only a memory cgroup holds it (skipped, and said so, where the server runs without one). */
  readonly needsCgroup?: boolean;
  contained(answer: Answer): boolean;
}

const python = (code: string, extra: Record<string, unknown> = {}) => ({
  code,
  language: "python",
  ...extra,
});
const node = (code: string, extra: Record<string, unknown> = {}) => ({ code, language: "nodejs", ...extra });

/** SandboxFusion's statuses back to ours (what sandbox-fusion-route.ts maps). */
function ourStatus(body: Record<string, unknown>): string | undefined {
  const run = body.run_result as { status?: string; return_code?: number | null } | null;
  if (body.status === "Success") return "ok";
  if (body.status === "SandboxError") return "sandbox_error";
  if (run?.status === "TimeLimitExceeded") return "timeout";
  if (body.message === "memory limit exceeded") return "memory_limit";
  if (body.message === "output limit exceeded") return "output_limit";
  return run ? "runtime_error" : undefined;
}

const printsErrno = (nr: number, args = "0, 0, 0, 0, 0, 0") =>
  python(
    [
      "import ctypes",
      "libc = ctypes.CDLL(None, use_errno=True)",
      `r = libc.syscall(${nr}, ${args})`,
      "print(ctypes.get_errno() if r == -1 else 0)",
    ].join("\n"),
  );

const seccompProbe = (name: string, nr: number, bounded = false): Probe => ({
  name: `seccomp: ${name} is denied with EPERM`,
  kind: "seccomp",
  bounded,
  body: printsErrno(nr),
  contained: (a) => a.status === "ok" && a.stdout.trim() === String(EPERM),
});

function probes(hostPort: number): Probe[] {
  const memory: Probe[] = MEMORY_HOGS.map((hog, i) => ({
    name: `memory: ${hog.name} in a ${LIMIT_MB} MiB run`,
    kind: "memory",
    bounded: i < 2,
    watchMemory: true,
    needsCgroup: hog.needsCgroup,
    body: python(hog.code, { memory_limit_MB: LIMIT_MB, run_timeout: 30 }),
    contained: (a) => a.http === 200 && a.riseMb !== undefined && a.riseMb <= LIMIT_MB + SLACK_MB,
  }));
  return [
    ...memory,
    {
      name: "memory: a 1 GiB bytearray ends in MemoryError (memory_limit)",
      kind: "memory",
      bounded: true,
      watchMemory: true,
      body: python("x = bytearray(1 << 30)", { memory_limit_MB: LIMIT_MB }),
      contained: (a) => a.status === "memory_limit" && (a.riseMb ?? 0) <= LIMIT_MB + SLACK_MB,
    },
    {
      name: "memory: a JavaScript heap hog is reported as memory_limit",
      kind: "memory",
      bounded: true,
      body: node("const a = []; for (;;) a.push(new Array(1e6).fill(1.5));", { memory_limit_MB: 128 }),
      contained: (a) => a.status === "memory_limit",
    },
    {
      // V8 either aborts (memory_limit) or, collecting garbage ever more often near its heap limit,
      // runs out of time first (timeout): either way the run ends within its limits.
      name: "memory: a JavaScript hog of many small objects ends at its memory or time limit",
      kind: "memory",
      body: node("const a = []; for (;;) a.push({ x: Math.random(), y: [1, 2, 3] });", {
        memory_limit_MB: 128,
      }),
      contained: (a) => a.status === "memory_limit" || a.status === "timeout",
    },
    {
      name: "memory: a JavaScript Buffer hog is reported as memory_limit",
      kind: "memory",
      body: node("const a = []; for (;;) a.push(Buffer.alloc(1 << 24, 1));", { memory_limit_MB: 128 }),
      contained: (a) => a.status === "memory_limit",
    },
    {
      name: "limits: memory_limit_MB 4096 is refused (above the operator's maximum)",
      kind: "limits",
      bounded: true,
      body: python("print('ran')", { memory_limit_MB: 4096 }),
      contained: (a) => a.http === 400 && !a.stdout.includes("ran"),
    },
    {
      name: "limits: memory_limit_MB 2^40 is refused",
      kind: "limits",
      body: python("print('ran')", { memory_limit_MB: 2 ** 40 }),
      contained: (a) => a.http === 400,
    },
    {
      name: "limits: run_timeout 3600 is refused",
      kind: "limits",
      body: python("print('ran')", { run_timeout: 3600 }),
      contained: (a) => a.http === 400,
    },
    {
      name: "limits: the program cannot raise its own rlimits (address space, processes, file size)",
      kind: "limits",
      bounded: true,
      body: python(
        [
          "import resource",
          "for r in (resource.RLIMIT_AS, resource.RLIMIT_NPROC, resource.RLIMIT_FSIZE):",
          "    try:",
          "        resource.setrlimit(r, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))",
          "        print('raised')",
          "    except (ValueError, OSError):",
          "        print('refused')",
        ].join("\n"),
      ),
      contained: (a) => a.status === "ok" && a.stdout === "refused\nrefused\nrefused\n",
    },
    {
      name: "processes: a fork bomb ends at the time limit",
      kind: "processes",
      bounded: true,
      body: python("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass", {
        run_timeout: 2,
      }),
      contained: (a) => a.status === "timeout",
    },
    {
      name: "processes: forking stops at the process limit",
      kind: "processes",
      body: python(
        "import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        n += 1\nexcept OSError as e:\n    print(n <= 64, e.errno)",
      ),
      contained: (a) => a.status === "ok" && a.stdout === "True 11\n",
    },
    {
      name: "processes: a daemon (double fork, setsid) does not outlive the run",
      kind: "processes",
      bounded: true,
      body: python(
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(60)\n    os._exit(0)\nprint('parent done')",
      ),
      contained: (a) => a.status === "ok",
    },
    {
      name: "processes: a child ignoring SIGTERM and SIGHUP does not outlive the run",
      kind: "processes",
      body: python(
        "import os, signal, time\nif os.fork() == 0:\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n    signal.signal(signal.SIGHUP, signal.SIG_IGN)\n    time.sleep(60)\nprint('parent done')",
      ),
      contained: (a) => a.status === "ok",
    },
    {
      name: "processes: 1000 threads stop at the process limit",
      kind: "processes",
      body: python(
        "import threading, time\nn = 0\ntry:\n    for _ in range(1000):\n        threading.Thread(target=time.sleep, args=(5,), daemon=True).start()\n        n += 1\nexcept RuntimeError:\n    pass\nprint(n < 64)",
      ),
      contained: (a) => a.stdout === "True\n",
    },
    {
      name: "processes: kill(-1) inside the sandbox kills only its own processes",
      kind: "processes",
      body: python("import os, signal\nos.kill(-1, signal.SIGKILL)\nprint('alive')"),
      contained: (a) => a.http === 200,
    },
    {
      name: "network: the code server's own port on the host's loopback is unreachable",
      kind: "network",
      bounded: true,
      body: {
        ...python(
          `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${hostPort}), timeout=2)\n    print("connected")\nexcept OSError as e:\n    print(type(e).__name__)`,
        ),
      },
      contained: (a) => a.status === "ok" && a.stdout === "ConnectionRefusedError\n",
    },
    {
      name: "network: an outside address is unreachable and names do not resolve",
      kind: "network",
      body: python(
        [
          "import socket",
          "for host in ('203.0.113.1', 'example.com'):",
          "    try:",
          "        socket.create_connection((host, 80), timeout=2)",
          "        print('connected')",
          "    except OSError as e:",
          "        print(type(e).__name__)",
        ].join("\n"),
      ),
      contained: (a) => a.status === "ok" && !a.stdout.includes("connected"),
    },
    {
      name: "network: raw and packet sockets are refused",
      kind: "network",
      body: python(
        [
          "import socket",
          "for family, kind in ((socket.AF_INET, socket.SOCK_RAW), (socket.AF_PACKET, socket.SOCK_RAW)):",
          "    try:",
          "        socket.socket(family, kind, 0)",
          "        print('opened')",
          "    except OSError as e:",
          "        print('refused')",
        ].join("\n"),
      ),
      contained: (a) => a.status === "ok" && a.stdout === "refused\nrefused\n",
    },
    {
      name: "/proc: only the sandbox's own processes are visible",
      kind: "files",
      bounded: true,
      body: python("import os\npids = [p for p in os.listdir('/proc') if p.isdigit()]\nprint(len(pids) < 8)"),
      contained: (a) => a.stdout === "True\n",
    },
    {
      name: "/proc: kernel settings cannot be written",
      kind: "files",
      body: python(
        "for path in ('/proc/sys/vm/drop_caches', '/proc/sys/kernel/hostname', '/proc/sysrq-trigger'):\n    try:\n        open(path, 'w').write('1')\n        print('written')\n    except OSError:\n        print('refused')",
      ),
      contained: (a) => a.status === "ok" && a.stdout === "refused\nrefused\nrefused\n",
    },
    {
      name: "files: no host files, no /sys, and nothing writable outside the run's tmpfs",
      kind: "files",
      body: python(
        [
          "import os",
          "print([p for p in ('/etc/shadow', '/root', '/home', '/sys/kernel', '/work', '/var/run/docker.sock') if os.path.exists(p)])",
          "for path in ('/usr/bin/evil', '/evil', '/etc/evil', '/dev/evil'):",
          "    try:",
          "        open(path, 'w')",
          "        print('written')",
          "    except OSError:",
          "        pass",
        ].join("\n"),
      ),
      contained: (a) => a.status === "ok" && a.stdout === "[]\n",
    },
    seccompProbe("ptrace", 101, true),
    seccompProbe("mount", 165, true),
    seccompProbe("unshare", 272),
    seccompProbe("setns", 308),
    seccompProbe("keyctl", 250),
    seccompProbe("bpf", 321),
    seccompProbe("userfaultfd", 323),
    seccompProbe("perf_event_open", 298),
    seccompProbe("kexec_load", 246),
    seccompProbe("init_module", 175),
    seccompProbe("io_uring_setup", 425),
    seccompProbe("process_vm_readv", 310),
    {
      name: "seccomp: an i386 system call (int 0x80) is denied",
      kind: "seccomp",
      body: python(
        [
          "import ctypes, mmap",
          // mov eax, 20 (i386 getpid); int 0x80; ret
          "code = bytes([0xb8, 20, 0, 0, 0, 0xcd, 0x80, 0xc3])",
          "m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)",
          "m.write(code)",
          "addr = ctypes.addressof(ctypes.c_char.from_buffer(m))",
          "print(ctypes.CFUNCTYPE(ctypes.c_int)(addr)())",
        ].join("\n"),
      ),
      contained: (a) => a.status === "ok" && a.stdout.trim() === String(-EPERM),
    },
    {
      name: "time: an endless loop ends at the time limit",
      kind: "time",
      bounded: true,
      body: python("while True:\n    pass", { run_timeout: 1 }),
      contained: (a) => a.status === "timeout",
    },
    {
      name: "time: a sleeping run ends at the time limit",
      kind: "time",
      body: python("import time\ntime.sleep(600)", { run_timeout: 1 }),
      contained: (a) => a.status === "timeout",
    },
    {
      name: "output: a flood of output is cut at the cap",
      kind: "time",
      body: python("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)"),
      contained: (a) => a.status === "output_limit" && a.stdout.length === 64 * 1024,
    },
    {
      name: "http: /run_code with a foreign Host (DNS rebinding) is refused and runs nothing",
      kind: "http",
      bounded: true,
      host: "attacker.example",
      body: python("print('ran')"),
      contained: (a) => a.http === 403 && !a.stdout.includes("ran"),
    },
  ];
}

/** Processes (not zombies) of the given slot uids: what a run left running. */
function leftovers(uidBase: number): string[] {
  if (process.getuid?.() !== 0) return [];
  const uids = Array.from({ length: CONCURRENCY }, (_, i) => uidBase + i).join(",");
  try {
    const out = execFileSync("ps", ["-o", "pid=,stat=,args=", "-u", uids], { encoding: "utf8" });
    return out.split("\n").filter((line) => line.trim() !== "" && !/^\s*\d+\s+Z/.test(line));
  } catch {
    return []; // ps exits 1 when it lists nothing
  }
}

async function waitForNoLeftovers(uidBase: number): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const left = leftovers(uidBase);
    if (left.length === 0) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
  return leftovers(uidBase);
}

interface Outcome {
  name: string;
  contained: boolean;
  detail: string;
  riseMb?: number;
}

/** One code server (on loopback) and the probes run against it, one at a time. */
async function runProbes(
  accounting: "auto" | "rlimit",
  uidBase: number,
  choose: (all: Probe[], mode: string) => Probe[],
  log: (message: string) => void,
) {
  const server = await createCodeServer({ concurrency: CONCURRENCY, uidBase, memoryAccounting: accounting });
  const serving = await server.serveHttp({ port: 0 });
  const self = `127.0.0.1:${serving.port}`;
  const outcomes: Outcome[] = [];
  let hangs = 0;
  let leaks = 0;
  try {
    // A run with a memory cgroup may create a memfd; one without may not (the filter denies it).
    const memfd = await post(serving.port, self, python("import os\nos.memfd_create('x')"));
    const mode = memfd.status === "ok" ? "cgroup" : "rlimit";
    for (const probe of choose(probes(serving.port), mode)) {
      const watch = probe.watchMemory ? await watchHostMemory([uidBase, uidBase + 1]) : undefined;
      let answer: Answer;
      try {
        answer = await post(serving.port, probe.host ?? self, probe.body ?? {});
      } catch (err) {
        hangs++;
        answer = { http: 0, stdout: "", stderr: String(err) };
      }
      if (watch) answer.riseMb = Math.round(((await watch.stop()).peakRiseBytes / MIB) * 10) / 10;
      const left = await waitForNoLeftovers(uidBase);
      if (left.length > 0) leaks++;
      const contained = probe.contained(answer) && left.length === 0;
      const rise = answer.riseMb === undefined ? "" : `, host memory +${answer.riseMb} MiB`;
      const running = left.length ? `, left running: ${left.join(" | ")}` : "";
      const detail = `http ${answer.http}, status ${answer.status ?? "-"}${rise}, stdout ${JSON.stringify(answer.stdout.slice(0, 80))}${running}`;
      const name = `[${mode}] ${probe.name}`;
      outcomes.push({
        name,
        contained,
        detail,
        ...(answer.riseMb !== undefined && { riseMb: answer.riseMb }),
      });
      log(`${contained ? "contained" : "NOT CONTAINED"}: ${name} (${detail})`);
    }
    const after = await post(serving.port, self, python("print(6 * 7)"));
    return {
      mode,
      outcomes,
      hangs,
      leaks,
      serverStillRuns: after.status === "ok" && after.stdout === "42\n",
    };
  } finally {
    await serving.close();
  }
}

const scenario: ChaosScenario = {
  name: "sandbox",
  description:
    "Hardening item 4: the code sandbox's memory accounting (memfd, tmpfs, shared memory, children), operator maxima, the seccomp filter, processes, network, /proc and the Host check of /run_code.",
  async run(context) {
    const tallies = { ...emptyTallies(), sandbox_probes_tried: 0, sandbox_probes_contained: 0 };
    // Its own uids, used by no process now: what runs as them later is the scenario's (never, e.g.,
    // an environment host's worker at its default 62000).
    const UID_BASE = freeUidRange(UID_RANGE);
    context.log(`sandbox uids ${UID_BASE}–${UID_BASE + UID_RANGE - 1}`);
    const bounded = (list: Probe[]) => (context.bounded ? list.filter((p) => p.bounded) : list);
    let skipped = 0;
    // First the server as an operator would start it (a memory cgroup per run where the host allows).
    const main = await runProbes(
      "auto",
      UID_BASE,
      (all, mode) =>
        bounded(all).filter((p) => {
          const runs = !p.needsCgroup || mode === "cgroup";
          if (!runs) {
            skipped++;
            context.log(`skipped (needs a memory cgroup, this host has none): ${p.name}`);
          }
          return runs;
        }),
      context.log,
    );
    // Then, where that was a cgroup, the fallback too: the memory probes it must hold without one.
    const fallback =
      main.mode === "cgroup"
        ? await runProbes(
            "rlimit",
            UID_BASE + 10,
            (all) => bounded(all).filter((p) => p.kind === "memory" && !p.needsCgroup),
            context.log,
          )
        : undefined;
    // And, for the report, what the fallback lets a run spread over several processes hold.
    const spread: Outcome[] = [];
    if (!context.bounded && main.mode === "cgroup") {
      const gap = await runProbes(
        "rlimit",
        UID_BASE + 20,
        (all) => all.filter((p) => p.needsCgroup),
        () => {},
      );
      spread.push(...gap.outcomes);
    }
    const passes = [main, ...(fallback ? [fallback] : [])];
    const outcomes = passes.flatMap((p) => p.outcomes);
    tallies.cases_tried = tallies.sandbox_probes_tried = outcomes.length;
    tallies.sandbox_probes_contained = outcomes.filter((o) => o.contained).length;
    tallies.hangs = passes.reduce((n, p) => n + p.hangs, 0);
    tallies.leaks = passes.reduce((n, p) => n + p.leaks, 0);
    tallies.crashes = passes.filter((p) => !p.serverStillRuns).length;
    const rises = outcomes.flatMap((o) => (o.riseMb === undefined ? [] : [o.riseMb]));
    const riseOf = (mode: string) =>
      Math.max(0, ...outcomes.filter((o) => o.name.startsWith(`[${mode}]`)).map((o) => o.riseMb ?? 0));
    const checks: ChaosCheck[] = [
      check(
        "every probe is contained",
        tallies.sandbox_probes_contained === tallies.sandbox_probes_tried,
        outcomes
          .filter((o) => !o.contained)
          .map((o) => `${o.name}: ${o.detail}`)
          .join("; ") || `${tallies.sandbox_probes_contained}/${tallies.sandbox_probes_tried} contained`,
      ),
      check(
        `no memory probe makes host memory rise by more than its ${LIMIT_MB} MiB limit (+${SLACK_MB} MiB slack)`,
        rises.every((rise) => rise <= LIMIT_MB + SLACK_MB),
        `largest rises (MiB): ${rises.join(", ")}`,
      ),
      check("nothing a run started outlives it", tallies.leaks === 0, `${tallies.leaks} runs left processes`),
      check(
        "after every probe the server still runs an ordinary program",
        tallies.crashes === 0,
        `${tallies.crashes} of ${passes.length} servers stopped running programs`,
      ),
      check(
        context.bounded
          ? "the bounded run tries at least 10 probes"
          : "the full run tries at least 30 probes",
        tallies.sandbox_probes_tried >= (context.bounded ? 10 : 30),
        `${tallies.sandbox_probes_tried} tried, ${skipped} skipped for want of a memory cgroup`,
      ),
    ];
    return {
      tallies,
      checks,
      figures: {
        memory_accounting: main.mode,
        run_memory_limit_mib: LIMIT_MB,
        max_host_memory_rise_mib_cgroup: main.mode === "cgroup" ? riseOf("cgroup") : null,
        max_host_memory_rise_mib_rlimit: riseOf("rlimit"),
        sandbox_probes_skipped_without_cgroup: skipped,
        rlimit_mode_spread_over_processes_rise_mib: spread.length
          ? Math.max(...spread.map((o) => o.riseMb ?? 0))
          : null,
      },
    };
  },
};

export default scenario;

async function post(port: number, host: string, body: unknown): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/run_code",
        headers: { host, "content-type": "application/json" },
        timeout: 120_000,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          let parsed: Record<string, unknown> = {};
          try {
            parsed = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // not JSON (e.g. a refusal page)
          }
          const run = parsed.run_result as { stdout?: string; stderr?: string } | null | undefined;
          const status = res.statusCode === 200 ? ourStatus(parsed) : undefined;
          resolve({
            http: res.statusCode ?? 0,
            ...(status !== undefined && { status }),
            stdout: run?.stdout ?? "",
            stderr: run?.stderr ?? (typeof parsed.error === "string" ? parsed.error : ""),
          });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer within 120 s")));
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}
