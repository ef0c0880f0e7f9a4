// `node --import THIS_FILE ...`: records what a process loads and the CPU it spends, for tests and
// the cli-startup bench that guard `rlf`'s start-up. At exit it writes JSON to $RLF_LOAD_PROBE_OUT:
//   { cpu_ms: user+sys CPU of the whole process, modules: every module URL it loaded (ESM and CommonJS),
//     first_connect_cpu_ms: the CPU spent when the process first opened a TCP connection (null if never) }
// Without $RLF_LOAD_PROBE_OUT it does nothing.
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";
import { Socket } from "node:net";

const out = process.env.RLF_LOAD_PROBE_OUT;
if (out) {
  const modules = new Set<string>();
  registerHooks({
    load(url, context, nextLoad) {
      modules.add(url);
      return nextLoad(url, context);
    },
  });
  const cpuMs = (): number => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  let firstConnectCpuMs: number | null = null;
  const connect = Socket.prototype.connect;
  Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
    firstConnectCpuMs ??= cpuMs();
    return (connect as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof Socket.prototype.connect;
  process.on("exit", () => {
    writeFileSync(
      out,
      JSON.stringify({ cpu_ms: cpuMs(), first_connect_cpu_ms: firstConnectCpuMs, modules: [...modules] }),
    );
  });
}
