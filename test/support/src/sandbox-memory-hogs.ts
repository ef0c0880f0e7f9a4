// Python programs that try to make the host hold more memory than a sandboxed run's limit, each
// through one channel (memfd, tmpfs, SysV or POSIX shared memory, shared mappings, child processes).
// Each fills as much as it can get, prints how many MiB it holds, and keeps holding it for a while so
// that a host-side watch (host-memory.ts) sees the plateau.

const PRELUDE = [
  "import ctypes, mmap, os, sys, time",
  "MiB = 1 << 20",
  "CHUNK = b'x' * MiB",
  "held = 0",
  "def hold(seconds=1.0):",
  "    print(held, flush=True)",
  "    time.sleep(seconds)",
];

export interface MemoryHog {
  /** Which channel, in words. */
  readonly name: string;
  readonly code: string;
  /**
   * Whether only a memory cgroup holds it within the limit: it spreads over several processes, each
   * within its own rlimits (see the code sandbox's docs on the fallback without a cgroup).
   */
  readonly needsCgroup: boolean;
}

const program = (...lines: string[]) => [...PRELUDE, ...lines, "hold()"].join("\n");

export const MEMORY_HOGS: readonly MemoryHog[] = [
  {
    name: "16 memfds of 64 MiB",
    needsCgroup: false,
    code: program(
      "fds = []",
      "try:",
      "    for i in range(16):",
      "        fds.append(os.memfd_create('m%d' % i))",
      "        for _ in range(64):",
      "            os.write(fds[-1], CHUNK)",
      "            held += 1",
      "except OSError as e:",
      "    print('memfd:', e.strerror, file=sys.stderr)",
    ),
  },
  {
    name: "files filling /tmp, /sandbox and /dev/shm",
    needsCgroup: false,
    code: program(
      "for d in ('/tmp', '/sandbox', '/dev/shm'):",
      "    try:",
      "        for i in range(64):",
      "            with open('%s/fill%d' % (d, i), 'wb') as f:",
      "                for _ in range(32):",
      "                    f.write(CHUNK)",
      "                    f.flush()",
      "                    held += 1",
      "    except OSError as e:",
      "        print(d, e.strerror, file=sys.stderr)",
    ),
  },
  {
    name: "POSIX shared memory (shm_open, 16 × 64 MiB)",
    needsCgroup: false,
    code: program(
      "from multiprocessing import shared_memory",
      "blocks = []",
      "try:",
      "    for i in range(16):",
      "        blocks.append(shared_memory.SharedMemory(create=True, size=64 * MiB))",
      "        for j in range(64):",
      "            blocks[-1].buf[j * MiB:(j + 1) * MiB] = CHUNK",
      "            held += 1",
      "except (OSError, ValueError, BufferError) as e:",
      "    print('shm_open:', e, file=sys.stderr)",
    ),
  },
  {
    name: "SysV shared memory (shmget, filled and detached, 16 × 64 MiB)",
    needsCgroup: false,
    code: program(
      "libc = ctypes.CDLL(None, use_errno=True)",
      "libc.shmat.restype = ctypes.c_void_p",
      "for i in range(16):",
      "    shmid = libc.shmget(0, 64 * MiB, 0o1600)",
      "    if shmid < 0:",
      "        print('shmget:', os.strerror(ctypes.get_errno()), file=sys.stderr)",
      "        break",
      "    addr = libc.shmat(shmid, None, 0)",
      "    if addr in (None, ctypes.c_void_p(-1).value):",
      "        print('shmat:', os.strerror(ctypes.get_errno()), file=sys.stderr)",
      "        break",
      "    ctypes.memset(addr, 120, 64 * MiB)",
      "    libc.shmdt(ctypes.c_void_p(addr))",
      "    held += 64",
    ),
  },
  {
    name: "shared anonymous mappings (MAP_SHARED, 16 × 64 MiB)",
    needsCgroup: false,
    code: program(
      "maps = []",
      "try:",
      "    for i in range(16):",
      "        maps.append(mmap.mmap(-1, 64 * MiB, flags=mmap.MAP_SHARED))",
      "        for j in range(64):",
      "            maps[-1][j * MiB:(j + 1) * MiB] = CHUNK",
      "            held += 1",
      "except (OSError, MemoryError) as e:",
      "    print('mmap:', e, file=sys.stderr)",
    ),
  },
  {
    name: "shared mappings handed to 8 children, each 128 MiB",
    needsCgroup: true,
    code: program(
      "for i in range(8):",
      "    try:",
      "        m = mmap.mmap(-1, 128 * MiB, flags=mmap.MAP_SHARED)",
      "        for j in range(128):",
      "            m[j * MiB:(j + 1) * MiB] = CHUNK",
      "    except (OSError, MemoryError) as e:",
      "        print('mmap:', e, file=sys.stderr)",
      "        break",
      "    if os.fork() == 0:",
      "        time.sleep(3)",
      "        os._exit(0)",
      "    m.close()",
      "    held += 128",
    ),
  },
  {
    name: "8 children with 128 MiB of private memory each",
    needsCgroup: true,
    code: program(
      "for i in range(8):",
      "    if os.fork() == 0:",
      "        try:",
      "            x = bytearray(CHUNK) * 128",
      "        except MemoryError:",
      "            os._exit(1)",
      "        time.sleep(3)",
      "        os._exit(0)",
      "    held += 128",
      "time.sleep(0.5)",
    ),
  },
];

/** A run that holds `mb` MiB (private memory and a /tmp file), to show that the host-side watch sees it. */
export function memoryHolder(mb: number): string {
  return program(
    `x = bytearray(CHUNK) * ${mb - 8}`,
    "held += len(x) // MiB",
    "with open('/tmp/held', 'wb') as f:",
    "    f.write(CHUNK * 8)",
    "held += 8",
  );
}
