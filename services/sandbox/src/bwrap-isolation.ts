// The part of a bubblewrap command line every sandbox here starts with, so the code tool and the
// environment host isolate the same way: every namespace unshared (user, PID, network with only its
// own loopback, IPC, UTS, cgroup), no nested user namespaces (less kernel surface, no regaining
// capabilities), killed with its parent, its own session (no TIOCSTI into the caller's terminal),
// /usr read-only with the usual /lib, /bin symlinks, and its own /proc and /dev. Mounts, limits,
// the identity and the seccomp filter follow, per service.

/** The uid and gid a sandboxed program runs as inside its user namespace (`nobody`). */
export const SANDBOX_UID = 65534;

export function bwrapIsolationArgs(hostname: string): string[] {
  return [
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    ...["--hostname", hostname],
    ...["--ro-bind", "/usr", "/usr"],
    ...["--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64"],
    ...["--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin"],
    ...["--proc", "/proc", "--dev", "/dev"],
  ];
}

/** /etc/passwd and /etc/group for the sandbox: root and `nobody` (SANDBOX_UID, home `home`), no login. */
export function sandboxIdentityFiles(home: string): { passwd: string; group: string } {
  return {
    passwd: `root:x:0:0:root:/:/usr/sbin/nologin\nnobody:x:${SANDBOX_UID}:${SANDBOX_UID}:nobody:${home}:/usr/sbin/nologin\n`,
    group: `root:x:0:\nnogroup:x:${SANDBOX_UID}:\n`,
  };
}
