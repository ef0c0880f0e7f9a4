// Whether sandboxing works on this machine, and if not, why and how to fix it, in one line: finds bwrap
// (a path, or a name looked up on PATH), then reads the failure of a real test run (the sandbox's own
// command line) as a missing package, refused user namespaces, or something else.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import type { Language } from "./run-request.ts";
import type { RunResult } from "./run-result.ts";
import type { SandboxSettings } from "./sandbox-limits.ts";

/** Sandboxing does not work here; `reason` says why and how to fix it, in one line. */
export class SandboxUnavailable extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.name = "SandboxUnavailable";
    this.reason = reason;
  }
}

/** The absolute path of an executable file: `command` itself when it has a slash, else found on `searchPath`. */
export function locateExecutable(command: string, searchPath = process.env.PATH ?? ""): string | undefined {
  const candidates = command.includes("/")
    ? [command]
    : searchPath
        .split(delimiter)
        .filter((dir) => isAbsolute(dir))
        .map((dir) => join(dir, command));
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

export function bwrapMissing(command: string): string {
  const where = command.includes("/") ? `${command} does not exist` : `no ${command} on PATH`;
  return `the code sandbox needs bubblewrap (${where}): install it (apt-get install bubblewrap) and restart`;
}

/** bwrap's own report that the kernel (or a container's seccomp/AppArmor profile) refused a namespace. */
const NAMESPACE_REFUSED = /namespace|uid map|RTM_NEWADDR|Operation not permitted/i;

/** Why a test run of `language` that should print 42 did not, with how to fix it. */
export function explainFailedRun(language: Language, result: RunResult, settings: SandboxSettings): string {
  const text = (result.stderr.trim() || result.stdout.trim() || result.status).replace(/\s+/g, " ");
  const detail = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  const bwrapLine = /(?:^|\n)(bwrap: [^\n]*)/.exec(result.stderr)?.[1]?.trim();
  if (bwrapLine && NAMESPACE_REFUSED.test(bwrapLine))
    return (
      `the code sandbox needs user namespaces, which bubblewrap cannot create here (${bwrapLine}): ` +
      "allow unprivileged ones (sysctl user.max_user_namespaces > 0 and kernel.unprivileged_userns_clone=1; " +
      "Ubuntu 23.10+: kernel.apparmor_restrict_unprivileged_userns=0), or run the server as root, and restart"
    );
  if (bwrapLine?.includes(settings.prlimitPath))
    return `the code sandbox needs prlimit at ${settings.prlimitPath} (${bwrapLine}): install it (apt-get install util-linux) and restart`;
  if (language === "python" && /No such file/.test(detail) && detail.includes(settings.pythonPath))
    return `the code sandbox runs Python with ${settings.pythonPath}, which is missing: install it (apt-get install python3) and restart`;
  if (language === "javascript")
    return (
      `a JavaScript test run in the code sandbox failed (${result.status}: ${detail}): the sandbox runs ` +
      `${settings.nodePath}, which every uid must be able to read and execute (each directory above it world-searchable); ` +
      "pass another Node with --node PATH"
    );
  return `a ${language} test run in the code sandbox failed (${result.status}: ${detail}); see the code tool's README (Requirements)`;
}
