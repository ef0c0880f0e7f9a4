// A memory-mapped index (the default) answers exactly what an index read into memory answers, on one
// thread and on worker threads, while the serving process holds its postings in the page cache (file
// pages, shared by every process of the host) instead of private anonymous memory.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { rngStream } from "@rlfactory/kit";
import { afterAll, describe, expect, it } from "vitest";
import { type OpenedBm25Retriever, openBm25Retriever } from "./bm25-retriever.ts";
import { INDEX_FILES } from "./index-files.ts";
import { SAMPLE_CORPUS } from "./search-server.ts";

const ROOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "../../../..");
const tmp = mkdtempSync(join(tmpdir(), "rlf-search-mmap-"));

/** Queries from a corpus itself: each passage's title, and the first words of its text. */
function queriesOf(corpus: string, limit: number): string[] {
  return readFileSync(corpus, "utf8")
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => {
      const [title = "", text = ""] = (JSON.parse(line) as { contents: string }).contents.split("\n");
      return [title.replaceAll('"', ""), text.split(" ").slice(0, 6).join(" ")];
    })
    .filter((q) => q.trim() !== "")
    .slice(0, limit);
}

/** A generated corpus: `passages` passages of 60-140 words drawn (skewed) from a 6,000-word vocabulary. */
function generatedCorpus(passages: number): string {
  const random = rngStream(24);
  const vocabulary = Array.from({ length: 6000 }, (_, i) => `w${i.toString(36)}x`);
  const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 2)] ?? "w";
  const lines: string[] = [];
  for (let i = 0; i < passages; i++) {
    const words = Array.from({ length: 60 + Math.floor(random() * 80) }, word);
    lines.push(JSON.stringify({ id: String(i), contents: `"T${i} ${word()}"\n${words.join(" ")}` }));
  }
  const path = join(tmp, `generated-${passages}.jsonl`);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

const GENERATED = generatedCorpus(30_000);
/** Building the generated index takes a while on a loaded machine (~20 s of one core). */
const BUILD_TIMEOUT_MS = 180_000;
const opened: OpenedBm25Retriever[] = [];
afterAll(async () => {
  for (const { retriever } of opened) await retriever.close();
});

async function open(corpus: string, indexDir: string, opts: { mmap?: boolean; workers?: number }) {
  const o = await openBm25Retriever({ corpus, indexDir, ...opts });
  opened.push(o);
  return o;
}

const indexDirOf = (corpus: string) =>
  join(tmp, corpus === SAMPLE_CORPUS ? "index-sample" : "index-generated");
const ready = new Map<string, Promise<Record<"read" | "mapped" | "pooled", OpenedBm25Retriever>>>();
/**
 * The index of `corpus` opened three ways, one after the other: the first builds and saves it, the others
 * open what it saved (two builds into one directory at once would race each other's files).
 */
function openedThreeWays(corpus: string) {
  let opening = ready.get(corpus);
  if (opening === undefined) {
    const indexDir = indexDirOf(corpus);
    opening = (async () => {
      const read = await open(corpus, indexDir, { mmap: false });
      const mapped = await open(corpus, indexDir, {});
      const pooled = await open(corpus, indexDir, { workers: 2 });
      return { read, mapped, pooled };
    })();
    ready.set(corpus, opening);
  }
  return opening;
}

describe.each([
  ["the sample corpus", SAMPLE_CORPUS],
  ["a generated corpus", GENERATED],
])("a mapped index over %s", (_, corpus) => {
  const queries = queriesOf(corpus, 600);

  it(
    "is the default, and answers what the index read into memory answers (ids, order, scores)",
    async () => {
      const { read, mapped } = await openedThreeWays(corpus);
      // The addon is a dependency: the mapped path is taken here and in CI, never silently skipped.
      expect(mapped.mapped).toBe(true);
      expect(read.mapped).toBe(false);
      expect(queries.length).toBeGreaterThan(150);
      const expected = await read.retriever.retrieve(queries, 10);
      expect(await mapped.retriever.retrieve(queries, 10)).toEqual(expected);
      expect(expected.filter((hits) => hits.length === 10).length).toBeGreaterThan(100);
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    "answers the same on worker threads that each map the files",
    async () => {
      const { read, pooled } = await openedThreeWays(corpus);
      expect(pooled.mapped).toBe(true);
      expect(pooled.retriever.pool?.workers).toBe(2);
      expect(await pooled.retriever.retrieve(queries, 10)).toEqual(
        await read.retriever.retrieve(queries, 10),
      );
    },
    BUILD_TIMEOUT_MS,
  );
});

/**
 * Opens the generated index in a child process, touches every posting, and reports how much of its
 * resident memory is anonymous (private to it) and file-backed (page cache, shared) before and after.
 */
function openInChild(indexDir: string, mmap: boolean) {
  const script =
    `import { readFileSync } from "node:fs";` +
    `import { loadIndex } from ${JSON.stringify(fileURLToPath(new URL("./index-store.ts", import.meta.url)))};` +
    `const kb = (field) => Number(new RegExp("^" + field + ":\\\\s+(\\\\d+) kB", "m").exec(readFileSync("/proc/self/status", "utf8"))[1]);` +
    `const anon = kb("RssAnon"), file = kb("RssFile");` +
    `const loaded = await loadIndex(process.argv[1], process.argv[2], { mmap: process.argv[3] === "mmap" });` +
    `if (loaded.status !== "loaded") throw new Error(loaded.reason);` +
    `const { postingDocs, postingTfs } = loaded.data;` +
    `let sum = 0; for (let i = 0; i < postingDocs.length; i++) sum = (sum + postingDocs[i] + postingTfs[i]) | 0;` +
    `const maps = readFileSync("/proc/self/maps", "utf8");` +
    `console.log(JSON.stringify({ anon: kb("RssAnon") - anon, file: kb("RssFile") - file, sum,` +
    ` postingsMapped: maps.includes(${JSON.stringify(INDEX_FILES.postingDocs)}) }));`;
  const child = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", script, indexDir, GENERATED, mmap ? "mmap" : "read"],
    { cwd: ROOT, encoding: "utf8", timeout: 120_000 },
  );
  if (child.status !== 0) throw new Error(`child failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "") as {
    /** Growth of the process's anonymous resident memory (kB). */
    anon: number;
    /** Growth of its file-backed resident memory (kB). */
    file: number;
    sum: number;
    postingsMapped: boolean;
  };
}

describe("a process serving a mapped index", () => {
  it(
    "holds its postings in the page cache, not in private anonymous memory",
    async () => {
      await openedThreeWays(GENERATED); // built before the children open it
      const indexDir = indexDirOf(GENERATED);
      const postingKb =
        (statSync(join(indexDir, INDEX_FILES.postingDocs)).size +
          statSync(join(indexDir, INDEX_FILES.postingTfs)).size) /
        1024;
      expect(postingKb).toBeGreaterThan(12 * 1024);
      const read = openInChild(indexDir, false);
      const mapped = openInChild(indexDir, true);
      expect(mapped.sum).toBe(read.sum);
      expect(read.postingsMapped).toBe(false);
      expect(mapped.postingsMapped).toBe(true);
      // Reading copies the postings into the process's own memory; mapping leaves them in the page cache
      // (what the process still allocates on its own, the dictionary's tables and the heap, is alike in both).
      expect(read.anon).toBeGreaterThan(postingKb * 0.9);
      expect(mapped.file).toBeGreaterThan(postingKb * 0.9);
      expect(mapped.anon).toBeLessThan(postingKb * 0.5);
    },
    BUILD_TIMEOUT_MS,
  );
});

describe("a process where the addon does not load", () => {
  it(
    "reads the index instead, logs why, and answers the same",
    async () => {
      const { read } = await openedThreeWays(SAMPLE_CORPUS);
      const queries = queriesOf(SAMPLE_CORPUS, 40);
      const script =
        `import { registerHooks } from "node:module";` +
        // The addon's binary made unloadable in this process only, as where it was never built.
        `registerHooks({ resolve(specifier, context, next) {` +
        ` if (specifier.endsWith("/mmap.node")) throw new Error("withheld by the test"); return next(specifier, context); } });` +
        `const { openBm25Retriever } = await import(${JSON.stringify(fileURLToPath(new URL("./bm25-retriever.ts", import.meta.url)))});` +
        `const opened = await openBm25Retriever({ corpus: process.argv[1], indexDir: process.argv[2] });` +
        `const hits = await opened.retriever.retrieve(JSON.parse(process.argv[3]), 10);` +
        `await opened.retriever.close();` +
        `console.log(JSON.stringify({ answer: { mapped: opened.mapped, hits } }));`;
      const child = spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          script,
          SAMPLE_CORPUS,
          indexDirOf(SAMPLE_CORPUS),
          JSON.stringify(queries),
        ],
        { cwd: ROOT, encoding: "utf8", timeout: 120_000 },
      );
      expect(child.status, child.stderr).toBe(0);
      // The logs are on stderr (the toolkit's logger), the answer on stdout.
      const jsonLines = (text: string) =>
        text
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      const warning = jsonLines(child.stderr).find((line) => String(line.msg).includes("not mapped"));
      expect(warning?.level).toBe(40);
      expect(warning?.msg).toMatch(/@rlfactory\/mmap did not load: withheld by the test/);
      const lines = jsonLines(child.stdout);
      const answer = lines.find((line) => "answer" in line)?.answer as { mapped: boolean; hits: unknown };
      expect(answer.mapped).toBe(false);
      expect(answer.hits).toEqual(await read.retriever.retrieve(queries, 10));
    },
    BUILD_TIMEOUT_MS,
  );
});
