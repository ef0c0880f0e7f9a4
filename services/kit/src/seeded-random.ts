// Seeded randomness (task shuffling, the simulated LLM, benchmarks): a 32-bit hash of any parts (so a
// draw can be a pure function of seed, request and position) and a small PRNG stream (mulberry32) for
// draws made in order. Not cryptographic, not statistically fancy: reproducible on every machine.

/** FNV-1a over the parts' string forms (separated, so ["ab", "c"] and ["a", "bc"] differ), then an avalanche mix. */
export function hash32(...parts: readonly (string | number | readonly number[])[]): number {
  let h = 0x811c9dc5;
  const feed = (s: string) => {
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x1f; // part separator
    h = Math.imul(h, 0x01000193);
  };
  for (const p of parts) feed(typeof p === "object" ? p.join(",") : String(p));
  return mix32(h);
}

/** A uniform draw in [0, 1) that depends only on its parts. */
export function unit(...parts: readonly (string | number | readonly number[])[]): number {
  return hash32(...parts) / 0x1_0000_0000;
}

/** A PRNG stream (mulberry32): uniform draws in [0, 1), reproducible from the seed. */
export function rngStream(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}

function mix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
