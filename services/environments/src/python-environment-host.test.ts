// The Python environment host with a small example class (fixtures/shop.py), for real: sandboxed
// persistent workers under bubblewrap, real Python, real sockets.
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvironmentError } from "./environment-error.ts";
import { PythonEnvironmentHost, readFunctionDocs } from "./python-environment-host.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const SHOP = join(HERE, "fixtures/shop.py");
const SHOP_SCHEMAS = join(HERE, "fixtures/shop-schemas.json");
const HOSTILE = join(HERE, "fixtures/hostile.py");
const REPO_ROOT = resolve(HERE, "../../..");

/** Whether bubblewrap can start a sandbox here: under CI it must; elsewhere the tests are skipped. */
function haveBubblewrap(): boolean {
  const probe = spawnSync("bwrap", [
    ...["--unshare-all", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib"],
    ...["--symlink", "usr/lib64", "/lib64", "/usr/bin/python3", "-c", "pass"],
  ]);
  if (probe.status === 0) return true;
  const message = `environment host: bubblewrap cannot start a sandbox here (${probe.error?.message ?? probe.stderr?.toString().trim()})`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

const BWRAP = haveBubblewrap();

async function expectCode(promise: Promise<unknown>, code: string): Promise<EnvironmentError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EnvironmentError);
  expect((err as EnvironmentError).code).toBe(code);
  return err as EnvironmentError;
}

describe.skipIf(!BWRAP)("PythonEnvironmentHost", () => {
  let host: PythonEnvironmentHost;
  beforeAll(async () => {
    host = await PythonEnvironmentHost.start({ classes: [{ file: SHOP, className: "Shop" }], workers: 2 });
  });
  afterAll(async () => {
    await host?.stop();
  });

  it("serves the public methods as tools, with schemas from type hints and docstrings", () => {
    const tools = host.tools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "add_to_cart",
      "checkout",
      "die",
      "hog",
      "noisy",
      "open_socket",
      "read_file",
      "slow",
      "write_file",
    ]);
    const add = tools.find((t) => t.name === "add_to_cart")!;
    expect(add.description).toBe("Put items of the stock into the cart.");
    expect(add.inputSchema).toEqual({
      type: "object",
      properties: {
        item: { type: "string", description: "The name of the item." },
        quantity: { type: "integer", description: "How many to add; at least one.", default: 1 },
      },
      required: ["item"],
    });
    const checkout = tools.find((t) => t.name === "checkout")!;
    expect(checkout.inputSchema).toEqual({
      type: "object",
      properties: { coupons: { type: "array", items: { type: "string" }, default: null } },
    });
  });

  it("builds an episode from its config, runs calls on it, snapshots its public attributes and closes it", async () => {
    const handle = await host.create({ owner: "bob", stock: { apple: 5 } });
    expect(await host.call(handle, "add_to_cart", { item: "apple", quantity: 2 })).toEqual({
      ok: true,
      value: { cart: ["apple", "apple"] },
    });
    expect(await host.snapshot(handle)).toEqual({
      Shop: { stock: { apple: 3 }, owner: "bob", cart: ["apple", "apple"] },
    });
    expect(await host.call(handle, "checkout")).toEqual({ ok: true, value: "bought 2 items" });
    expect(await host.close(handle)).toEqual({ Shop: { stock: { apple: 3 }, owner: "bob", cart: [] } });
    await expectCode(host.call(handle, "checkout"), "UNKNOWN_EPISODE");
  });

  it("forks 16 independent deep copies", async () => {
    const parent = await host.create({ stock: { apple: 100 } });
    await host.call(parent, "add_to_cart", { item: "apple" });
    const forks = await host.fork(parent, 16);
    expect(new Set(forks).size).toBe(16);
    await Promise.all(forks.map((h, i) => host.call(h, "add_to_cart", { item: "apple", quantity: i + 1 })));
    const states = await Promise.all(forks.map((h) => host.snapshot(h)));
    states.forEach((state, i) => {
      expect(state.Shop!.cart).toHaveLength(1 + i + 1);
      expect(state.Shop!.stock).toEqual({ apple: 100 - 1 - (i + 1) });
    });
    expect(await host.snapshot(parent)).toEqual({
      Shop: { stock: { apple: 99 }, owner: "ada", cart: ["apple"] },
    });
    await Promise.all([parent, ...forks].map((h) => host.close(h)));
  });

  it("answers unknown tools, bad arguments and exceptions as tool errors, and the episode goes on", async () => {
    const handle = await host.create({ stock: { pear: 1 } });
    expect(await host.call(handle, "fly", {})).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
    expect(await host.call(handle, "_private", {})).toMatchObject({
      ok: false,
      error: { code: "UNKNOWN_TOOL" },
    });
    expect(await host.call(handle, "add_to_cart", {})).toMatchObject({
      ok: false,
      error: { code: "BAD_ARGUMENTS", message: expect.stringContaining("item") },
    });
    expect(await host.call(handle, "checkout", { discount: 3 })).toMatchObject({
      ok: false,
      error: { code: "BAD_ARGUMENTS", message: expect.stringContaining("discount") },
    });
    expect(await host.call(handle, "add_to_cart", { item: "pear", quantity: 2 })).toEqual({
      ok: false,
      error: { code: "TOOL_ERROR", message: "ValueError: only 1 pear left" },
    });
    // what the environment prints does not disturb the protocol
    expect(await host.call(handle, "noisy")).toEqual({ ok: true, value: 42 });
    expect(await host.call(handle, "add_to_cart", { item: "pear" })).toMatchObject({ ok: true });
    await host.close(handle);
  });

  it("refuses a config the class cannot be built from", async () => {
    const err = await expectCode(host.create({ colour: "red" }), "BAD_CONFIG");
    expect(err.message).toContain("colour");
  });

  it("reads calls written as Python source with ast, literals only", async () => {
    expect(await host.parseCall("add_to_cart('pear', quantity=2)")).toEqual({
      tool: "add_to_cart",
      arguments: { item: "pear", quantity: 2 },
    });
    await expectCode(host.parseCall("add_to_cart(item=open('/etc/passwd').read())"), "BAD_CALL");
    await expectCode(host.parseCall("__import__('os').system('true')"), "BAD_CALL");
    await expectCode(host.parseCall("nope(1)"), "UNKNOWN_TOOL");
  });

  it("runs the methods without network: the host's loopback server is never reached", async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const port = (server.address() as { port: number }).port;
    try {
      const handle = await host.create({});
      const local = await host.call(handle, "open_socket", { host: "127.0.0.1", port });
      expect(local).toMatchObject({
        ok: false,
        error: { code: "TOOL_ERROR", message: expect.stringContaining("ConnectionRefusedError") },
      });
      const outside = await host.call(handle, "open_socket", { host: "192.0.2.1", port: 80 });
      expect(outside).toMatchObject({
        ok: false,
        error: { code: "TOOL_ERROR", message: expect.stringContaining("unreachable") },
      });
      await host.close(handle);
    } finally {
      await new Promise((done) => server.close(done));
    }
    expect(connections).toBe(0);
  });

  it("holds the worker to its memory limit: a method allocating past it gets MemoryError, the episode goes on", async () => {
    const handle = await host.create({});
    expect(await host.call(handle, "hog", { megabytes: 2048 })).toMatchObject({
      ok: false,
      error: { code: "TOOL_ERROR", message: expect.stringContaining("MemoryError") },
    });
    expect(await host.call(handle, "hog", { megabytes: 8 })).toEqual({ ok: true, value: 8 * 1024 * 1024 });
    await host.close(handle);
  });

  it("sees only the module's files, read-only, and nothing else of the host", async () => {
    const handle = await host.create({});
    expect(await host.call(handle, "read_file", { path: SHOP })).toMatchObject({
      ok: true,
      value: expect.stringContaining("class Shop"),
    });
    expect(await host.call(handle, "write_file", { path: SHOP, text: "x" })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("Read-only file system") },
    });
    for (const path of [join(REPO_ROOT, "package.json"), "/etc/hostname", "/root/.bashrc"])
      expect(await host.call(handle, "read_file", { path })).toMatchObject({
        ok: false,
        error: { message: expect.stringContaining("No such file or directory") },
      });
    expect(await host.call(handle, "write_file", { path: "/tmp/scratch", text: "ok" })).toEqual({
      ok: true,
      value: "written",
    });
    await host.close(handle);
  });
});

describe.skipIf(!BWRAP)("PythonEnvironmentHost when a worker dies", () => {
  it("reports every episode of that worker lost, never recreated; the other worker's episodes go on", async () => {
    const host = await PythonEnvironmentHost.start({
      classes: [{ file: SHOP, className: "Shop" }],
      workers: 2,
    });
    try {
      // placed on the least loaded worker: e1, e3 on one, e2, e4 on the other
      const handles = [];
      for (let i = 0; i < 4; i++) handles.push(await host.create({}));
      for (const h of handles) await host.call(h, "add_to_cart", { item: "apple" });
      const [a, b, c, d] = handles as [string, string, string, string];
      await expectCode(host.call(a, "die"), "EPISODE_LOST");
      await expectCode(host.call(c, "checkout"), "EPISODE_LOST");
      await expectCode(host.snapshot(a), "EPISODE_LOST");
      await expectCode(host.fork(c, 2), "EPISODE_LOST");
      expect(await host.snapshot(b)).toMatchObject({ Shop: { cart: ["apple"] } });
      expect(await host.snapshot(d)).toMatchObject({ Shop: { cart: ["apple"] } });
      // a lost handle stays lost until closed, then it is unknown
      await expectCode(host.close(a), "EPISODE_LOST");
      await expectCode(host.call(a, "checkout"), "UNKNOWN_EPISODE");
      // new episodes run (on a fresh worker in the dead one's place)
      const fresh = await host.create({});
      expect(await host.snapshot(fresh)).toMatchObject({ Shop: { cart: [] } });

      // killed from outside (SIGKILL to the bwrap of slot 0, which holds only `fresh`): the same
      const pids = await host.workerPids();
      expect(pids).toHaveLength(2);
      const live = host.episodeCount;
      process.kill(pids[0]!, "SIGKILL");
      for (let i = 0; i < 500 && host.episodeCount === live; i++) await sleep(10);
      expect(host.episodeCount).toBe(live - 1);
      await expectCode(host.snapshot(fresh), "EPISODE_LOST");
      expect(await host.snapshot(b)).toMatchObject({ Shop: { cart: ["apple"] } });
      expect(await host.snapshot(d)).toMatchObject({ Shop: { cart: ["apple"] } });
    } finally {
      await host.stop();
    }
  });

  it("ends a worker whose call runs past the time limit; its episodes are lost", async () => {
    const host = await PythonEnvironmentHost.start({
      classes: [{ file: SHOP, className: "Shop" }],
      workers: 1,
      callTimeoutMs: 300,
    });
    try {
      const handle = await host.create({});
      const err = await expectCode(host.call(handle, "slow", { seconds: 30 }), "EPISODE_LOST");
      expect(err.message).toContain("time limit");
      await expectCode(host.snapshot(handle), "EPISODE_LOST");
      const next = await host.create({});
      expect(await host.call(next, "slow", { seconds: 0 })).toEqual({ ok: true, value: "rested" });
    } finally {
      await host.stop();
    }
  });
});

describe.skipIf(!BWRAP)("PythonEnvironmentHost and requests the worker cannot read", () => {
  it("fails only the request nested past Python's recursion limit; the worker and its episodes go on", async () => {
    // one worker, so the other episode shares it; a request left unanswered would end it after 10 s
    const host = await PythonEnvironmentHost.start({
      classes: [{ file: SHOP, className: "Shop" }],
      workers: 1,
      callTimeoutMs: 10_000,
    });
    try {
      const other = await host.create({});
      await host.call(other, "add_to_cart", { item: "apple" });
      let deep: unknown = {};
      for (let i = 0; i < 2_000; i++) deep = { a: deep };
      const err = await expectCode(host.create({ owner: deep }), "BAD_CONFIG");
      expect(err.message).toContain("RecursionError");
      expect(await host.call(other, "checkout", { coupons: [deep as string] })).toMatchObject({
        ok: false,
        error: { code: "BAD_ARGUMENTS" },
      });
      expect(await host.snapshot(other)).toMatchObject({ Shop: { cart: ["apple"] } });
      expect(host.episodeCount).toBe(1);
    } finally {
      await host.stop();
    }
  });
});

describe.skipIf(!BWRAP)("PythonEnvironmentHost and its protocol channel", () => {
  it("ends only a worker that writes past maxLineBytes without a newline; the other worker's episodes go on", async () => {
    const host = await PythonEnvironmentHost.start({
      classes: [{ file: HOSTILE, className: "Hostile" }],
      workers: 2,
      maxLineBytes: 1024 * 1024,
      callTimeoutMs: 20_000,
    });
    try {
      // placed on the least loaded worker: a, c on one, b, d on the other
      const [a, b, c, d] = [
        await host.create(),
        await host.create(),
        await host.create(),
        await host.create(),
      ];
      for (const h of [a, b, c, d]) await host.call(h!, "ping");
      const err = await expectCode(host.call(a!, "flood", { megabytes: 4 }), "EPISODE_LOST");
      expect(err.message).toContain("longer than 1048576 bytes (maxLineBytes)");
      await expectCode(host.call(c!, "ping"), "EPISODE_LOST");
      expect(await host.call(b!, "ping")).toEqual({ ok: true, value: 2 });
      expect(await host.call(d!, "ping")).toEqual({ ok: true, value: 2 });
      const fresh = await host.create();
      expect(await host.call(fresh, "ping")).toEqual({ ok: true, value: 1 });
      // an honest answer longer than a line fails alone, as a tool error naming the limit
      expect(await host.call(b!, "big", { megabytes: 2 })).toMatchObject({
        ok: false,
        error: { code: "TOOL_ERROR", message: expect.stringContaining("(maxLineBytes)") },
      });
      expect(await host.call(b!, "ping")).toEqual({ ok: true, value: 3 });
    } finally {
      await host.stop();
    }
  });
});

describe.skipIf(!BWRAP)("PythonEnvironmentHost's writable places", () => {
  it("holds /dev read-only and /dev/shm and /tmp to tmpMb: no file grows past the cap", async () => {
    const host = await PythonEnvironmentHost.start({
      classes: [{ file: HOSTILE, className: "Hostile" }],
      workers: 1,
      tmpMb: 4,
    });
    try {
      const h = await host.create();
      expect(await host.call(h, "fill", { path: "/dev/hog", megabytes: 1 })).toMatchObject({
        ok: false,
        error: { code: "TOOL_ERROR", message: expect.stringMatching(/Read-only file system/) },
      });
      // writable within the cap, refused past it
      expect(await host.call(h, "fill", { path: "/dev/shm/small", megabytes: 1 })).toEqual({
        ok: true,
        value: 1024 * 1024,
      });
      for (const folder of ["/dev/shm", "/tmp"]) {
        // eight files of 2 MiB: each under RLIMIT_FSIZE, together four times the folder's cap
        const filled = await host.call(h, "spread", { folder, files: 8, megabytes: 2 });
        expect(filled).toMatchObject({
          ok: false,
          error: { code: "TOOL_ERROR", message: expect.stringContaining("No space left on device") },
        });
      }
      expect(await host.call(h, "ping")).toEqual({ ok: true, value: 1 });
    } finally {
      await host.stop();
    }
  });
});

describe.skipIf(!BWRAP)("PythonEnvironmentHost schemas and loading", () => {
  it("takes schemas from a JSON file in BFCL's function-doc format, type hints for the rest", async () => {
    const host = await PythonEnvironmentHost.start({
      classes: [{ file: SHOP, className: "Shop" }],
      workers: 1,
      functionDocs: readFunctionDocs(SHOP_SCHEMAS),
    });
    try {
      const tools = Object.fromEntries(host.tools().map((t) => [t.name, t]));
      expect(tools.add_to_cart!.description).toBe("Add an item to the cart (from the schema file).");
      expect(tools.checkout!.inputSchema).toEqual({
        type: "object",
        properties: { coupons: { type: "array", items: { type: "string" } }, discount: { type: "number" } },
        required: [],
      });
      expect(tools.noisy!.description).toBe("Prints to stdout, which must not disturb the protocol.");
    } finally {
      await host.stop();
    }
  });

  it("refuses a class the module does not have", async () => {
    const err = await expectCode(
      PythonEnvironmentHost.start({ classes: [{ file: SHOP, className: "Bakery" }], workers: 1 }),
      "BAD_MODULE",
    );
    expect(err.message).toContain("Bakery");
  });
});

describe.skipIf(!BWRAP || !haveGymnasium())("PythonEnvironmentHost: which methods are tools", () => {
  const lake = { file: join(HERE, "fixtures/lake_wrapper.py"), className: "Lake" };
  const venv = join(HERE, "../.venv");

  it("serves the methods a gymnasium.Wrapper subclass declares itself: no set_wrapper_attr, no setter", async () => {
    const host = await PythonEnvironmentHost.start({ classes: [lake], venv, workers: 1 });
    try {
      expect(host.tools().map((t) => t.name)).toEqual(["move", "where"]);
      const episode = await host.create();
      const refused = await host.call(episode, "set_wrapper_attr", { name: "s", value: 14 });
      expect(refused).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
      // a str result is that string; a numpy array is a JSON list of numbers, not its repr
      expect(await host.call(episode, "move", { action: 2 })).toEqual({
        ok: true,
        value: "at 1, reward 0",
      });
      expect(await host.call(episode, "where")).toEqual({ ok: true, value: [0, 1] });
    } finally {
      await host.stop();
    }
  });

  it("serves exactly the methods listed, inherited ones too; a listed setter or private method is refused", async () => {
    const host = await PythonEnvironmentHost.start({
      classes: [lake],
      venv,
      workers: 1,
      methods: ["move", "reset"],
    });
    try {
      expect(host.tools().map((t) => t.name)).toEqual(["move", "reset"]);
    } finally {
      await host.stop();
    }
    for (const methods of [["move", "set_wrapper_attr"], ["_secret"], ["nothing"]])
      await expectCode(
        PythonEnvironmentHost.start({ classes: [lake], venv, workers: 1, methods }),
        "BAD_MODULE",
      );
  });
});

function haveGymnasium(): boolean {
  const probe = spawnSync(join(HERE, "../.venv/bin/python"), ["-c", "import gymnasium"]);
  if (probe.status === 0) return true;
  const message = "gymnasium is not installed in the environments venv (run npm run setup:environments)";
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}
