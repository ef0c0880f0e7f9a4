// Benchmark of the `search` tool server's BM25 index (JSON output; never timing asserts in tests).
//
//   node test/bench/search.ts --out FILE.json [--passages N] [--queries N] [--dir DIR] [--workers N]
//                             [--concurrent-lucene] [--no-lucene] [--reuse-index]
//
// Generates a synthetic Search-R1 corpus (default 1,000,000 passages of 80-120 words drawn from a
// 50,000-word vocabulary with Zipf frequencies, exponent 1.0), then measures:
//   build      index build time (analysis + inversion + save), peak RSS, index bytes in memory and on disk
//   load       reopening the saved index in a fresh server process: time and that process's RSS
//   search     in-process query latency (one query of 2-6 Zipf-sampled vocabulary words, top 10)
//   cpu        CPU-ms per query of the index alone (analysis + pruned top 10; and exhaustive scoring of
//              the first 200 queries), one thread, after a warm-up pass
//   lucene     when Java and the Lucene jars are present (lucene-side.ts): Lucene 9.12 builds its index
//              of the same corpus and runs the same queries in the same run; CPU-ms per query of both,
//              their ratio, and on how many queries the top 10 (ids, in order) are identical
//   retrieve   POST /retrieve over HTTP to that server process, one query per request, at concurrency 1 and 16
//   workers    with --workers N: the saved index reopened into shared memory and served by N worker
//              threads (search-pool.ts); queries/s at 2N in flight against `search` (one thread), the process's
//              CPU per query, and on how many queries the top 10 equal the single-threaded path's
import { type ChildProcess, spawn } from "node:child_process";
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { nearestRankPercentile, rngStream } from "@rlfactory/kit";
import { analyze, DEFAULT_BM25, ENGLISH_STOP_WORDS, openBm25Retriever } from "@rlfactory/tools";
import { type LuceneReport, luceneClasspath, runLucene } from "./lucene-side.ts";
import { measure } from "./measure.ts";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../..");

export interface SearchBenchOptions {
  passages?: number;
  vocabulary?: number;
  zipfExponent?: number;
  queries?: number;
  /** Work directory for the corpus and index (default: a fresh temp dir, removed afterwards). */
  dir?: string;
  /** Also serve the queries with this many worker threads sharing the index (the `workers` figure). */
  workers?: number;
  /**
   * Run the Lucene side (its build, then its queries) at the same time as our build instead of after our
   * queries: each side's CPU is still its own process's or thread's, and a wiki-scale run takes one build's
   * wall time instead of two. Meant for a machine with a core to spare.
   */
  concurrentLucene?: boolean;
  /** Leave the Lucene side out even where Java and its jars are (`--no-lucene`). */
  noLucene?: boolean;
  /** Open the index an earlier run left in `dir` instead of building it (`--reuse-index`; no build figures). */
  reuseIndex?: boolean;
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const MB = 1024 * 1024;

/** A small deterministic PRNG (mulberry32), so runs are comparable. */
const rng = rngStream;

function makeVocabulary(size: number, random: () => number): string[] {
  const consonants = "bcdfghjklmnprstvwz";
  const vowels = "aeiou";
  const words = new Set<string>();
  while (words.size < size) {
    const syllables = 1 + Math.floor(random() * 3);
    let word = "";
    for (let s = 0; s < syllables; s++) {
      word += consonants[Math.floor(random() * consonants.length)];
      word += vowels[Math.floor(random() * vowels.length)];
      if (random() < 0.4) word += consonants[Math.floor(random() * consonants.length)];
    }
    if (!ENGLISH_STOP_WORDS.has(word)) words.add(word);
  }
  return [...words];
}

/** Samples ranks 0..n-1 with probability proportional to 1 / (rank + 1)^s. */
function zipfSampler(n: number, s: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += 1 / (i + 1) ** s;
    cdf[i] = total;
  }
  return () => {
    const x = random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

async function writeCorpus(
  file: string,
  passages: number,
  word: () => string,
  random: () => number,
): Promise<void> {
  const out = createWriteStream(file);
  let batch = "";
  for (let i = 0; i < passages; i++) {
    const length = 80 + Math.floor(random() * 41);
    const words: string[] = [];
    for (let w = 0; w < length; w++) words.push(word());
    batch += `${JSON.stringify({ id: String(i), contents: `"${word()} ${word()}"\n${words.join(" ")}` })}\n`;
    if (batch.length > 4 * MB) {
      if (!out.write(batch)) await new Promise<void>((done) => out.once("drain", () => done()));
      batch = "";
    }
  }
  out.end(batch);
  await new Promise<void>((done) => out.once("finish", () => done()));
}

function dirSize(dir: string): number {
  return readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
}

function gc(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** Starts a search server process over the saved index; resolves with its port, load time and RSS. */
function startServer(corpus: string, indexDir: string) {
  const script = `
    import { createSearchServer } from ${JSON.stringify(join(ROOT, "services/tools/src/search/index.ts"))};
    const t0 = performance.now();
    const server = await createSearchServer({ corpus: process.argv[1], indexDir: process.argv[2] });
    const load_ms = performance.now() - t0;
    const serving = await server.serveHttp({ port: 0 });
    globalThis.gc?.();
    const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
    const { readFileSync } = await import("node:fs");
    const kb = (f) => 1024 * Number(new RegExp("^" + f + ":\\\\s+(\\\\d+)", "m").exec(readFileSync("/proc/self/status", "utf8"))[1]);
    const mapped = readFileSync("/proc/self/maps", "utf8").includes("posting-docs.u32") ? 1 : 0; // index-files.ts
    console.log(JSON.stringify({ port: serving.port, load_ms, rss, heapUsed, arrayBuffers, mapped, rssAnon: kb("RssAnon"), rssFile: kb("RssFile") }));
    // Ends with the bench: its stdin closes when the bench exits, however it exits.
    process.stdin.resume().once("end", () => process.exit(0));`;
  const child = spawn(
    process.execPath,
    ["--expose-gc", "--input-type=module", "-e", script, corpus, indexDir],
    {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, LOG_LEVEL: "warn" },
    },
  );
  return new Promise<{ child: ChildProcess; info: Record<string, number> }>((resolveStart, reject) => {
    child.once("exit", (code) => reject(new Error(`search server exited with ${code}`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const info = JSON.parse(line) as Record<string, number>;
      if (typeof info.port === "number") resolveStart({ child, info });
    });
  });
}

/** Builds the index in a child process: its CPU and peak RSS are the build's alone, not a server's. */
function buildInChild(corpus: string, indexDir: string) {
  const script = `
    import { statSync } from "node:fs";
    import { resolve } from "node:path";
    import { DEFAULT_BM25 } from ${JSON.stringify(join(ROOT, "services/tools/src/search/bm25.ts"))};
    import { buildAndSaveIndex } from ${JSON.stringify(join(ROOT, "services/tools/src/search/index-store.ts"))};
    const corpus = resolve(process.argv[1]);
    const t0 = performance.now();
    const stats = await buildAndSaveIndex(process.argv[2], { path: corpus, mtimeMs: statSync(corpus).mtimeMs }, DEFAULT_BM25);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage();
    const peak_rss = process.resourceUsage().maxRSS * 1024;
    console.log(JSON.stringify({ stats, ms, cpu_ms: (cpu.user + cpu.system) / 1000, peak_rss }));
    process.exit(0);`;
  // The build stops with the bench: its stdin closes when the bench exits, however it exits.
  const watch = 'process.stdin.resume().once("end", () => process.exit(1));';
  const child = spawn(process.execPath, ["--input-type=module", "-e", watch + script, corpus, indexDir], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, LOG_LEVEL: "warn" },
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => lines.push(line));
  return new Promise<{ stats: { segments: number }; ms: number; cpu_ms: number; peak_rss: number }>(
    (done, reject) => {
      child.once("error", reject);
      child.once("close", (code) => {
        const last = lines.at(-1);
        if (code !== 0 || last === undefined) reject(new Error(`index build exited with ${code}`));
        else done(JSON.parse(last));
      });
    },
  );
}

/**
 * Opens the saved index in this process and measures it: `retrieve`, the index alone on one thread, and
 * with `workers` the pooled index. Returns figures only, so the index is garbage once this returns.
 */
async function inProcessPhase(
  corpus: string,
  indexDir: string,
  queries: string[],
  workerThreads: number | undefined,
  log: (msg: string) => void,
) {
  const numQueries = queries.length;
  gc();
  const before = process.memoryUsage();
  const t0 = performance.now();
  const { retriever, built } = await openBm25Retriever({ corpus, indexDir });
  const openMs = performance.now() - t0;
  if (built) throw new Error(`expected a saved index in ${indexDir}, found none that fits the corpus`);
  gc();
  const after = process.memoryUsage();
  const data = retriever.index.data;
  const indexBytes =
    data.termBytes.byteLength +
    data.termOffsets.byteLength +
    data.postingOffsets.byteLength +
    data.postingDocs.byteLength +
    data.postingTfs.byteLength +
    data.norms.byteLength +
    data.docOffsets.byteLength +
    data.blockMaxima.byteLength;
  const diskBytes = dirSize(indexDir);
  log(
    `open: ${round(openMs / 1000, 1)} s, ${data.postingDocs.length} postings, ${retriever.index.numTerms} terms`,
  );

  for (const q of queries.slice(0, 100)) await retriever.retrieve([q], 10); // warm-up
  const inProcess = await measure(
    async (i) => {
      await retriever.retrieve([queries[i % queries.length] as string], 10);
      return true;
    },
    1,
    numQueries,
  );
  await retriever.close();
  log(`in-process: p50 ${inProcess.p50_ms} ms, p99 ${inProcess.p99_ms} ms, ${inProcess.throughput_per_s}/s`);

  // The index alone, one thread: CPU per query (pruned, and exhaustive on a subset), top 10 ids.
  const index = retriever.index;
  const analyzed = queries.map((q) => analyze(q));
  for (const terms of analyzed) index.search(terms, 10); // warm-up pass
  const ourHits: string[][] = [];
  const latencies: number[] = [];
  const searchCpu0 = process.cpuUsage();
  const searchStarted = performance.now();
  for (const terms of analyzed) {
    const q0 = performance.now();
    ourHits.push(index.search(terms, 10).map((h) => String(h.doc))); // synthetic ids are line numbers
    latencies.push(performance.now() - q0);
  }
  const searchWallS = (performance.now() - searchStarted) / 1000;
  const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
  const ourCpuMs = cpuMs(process.cpuUsage(searchCpu0)) / numQueries;
  const exhaustiveQueries = analyzed.slice(0, 200);
  const exhaustiveCpu0 = process.cpuUsage();
  for (const terms of exhaustiveQueries) index.searchExhaustive(terms, 10);
  const exhaustiveCpuMs = cpuMs(process.cpuUsage(exhaustiveCpu0)) / exhaustiveQueries.length;
  const cpu = {
    cpu_ms_per_query: round(ourCpuMs, 3),
    p50_ms: round(nearestRankPercentile(latencies, 50) ?? 0, 3),
    p99_ms: round(nearestRankPercentile(latencies, 99) ?? 0, 3),
    queries_per_s: round(numQueries / searchWallS, 1),
    queries_per_cpu_s: round(1000 / ourCpuMs, 1),
    exhaustive_cpu_ms_per_query: round(exhaustiveCpuMs, 3),
    exhaustive_queries: exhaustiveQueries.length,
  };

  let workers: Record<string, unknown> | undefined;
  if (workerThreads) {
    // The saved index reopened into shared memory, queries answered by N worker threads.
    const pooled = (await openBm25Retriever({ corpus, indexDir, workers: workerThreads })).retriever;
    const inFlight = 2 * workerThreads;
    const one = async (i: number) => {
      await pooled.retrieve([queries[i % queries.length] as string], 10);
      return true;
    };
    await measure(one, inFlight, 200); // warm-up: every thread's JIT
    const pooledCpu0 = process.cpuUsage();
    const run = await measure(one, inFlight, numQueries);
    const pooledCpuMs = cpuMs(process.cpuUsage(pooledCpu0)) / numQueries;
    const pooledHits = await pooled.retrieve(queries, 10);
    const identical = pooledHits.filter(
      (hits, i) => JSON.stringify(hits.map((h) => h.id)) === JSON.stringify(ourHits[i]),
    ).length;
    await pooled.close();
    workers = {
      workers: workerThreads,
      in_flight: inFlight,
      queries_per_s: run.throughput_per_s,
      p50_ms: run.p50_ms,
      p99_ms: run.p99_ms,
      one_thread_queries_per_s: inProcess.throughput_per_s,
      speedup: round(run.throughput_per_s / inProcess.throughput_per_s, 2),
      process_cpu_ms_per_query: round(pooledCpuMs, 3),
      top10_identical: identical,
    };
    log(
      `workers ${workerThreads}: ${run.throughput_per_s} q/s at ${inFlight} in flight (one thread: ${inProcess.throughput_per_s} q/s), top 10 identical on ${identical}/${numQueries}`,
    );
  }
  log(`index alone: ${cpu.cpu_ms_per_query} CPU-ms/query (exhaustive ${cpu.exhaustive_cpu_ms_per_query})`);
  return {
    inProcess,
    cpu,
    ourCpuMs,
    ourHits,
    workers,
    terms: retriever.index.numTerms,
    postings: data.postingDocs.length,
    tfBytes: data.postingTfs.BYTES_PER_ELEMENT,
    indexBytes,
    diskBytes,
    openMs,
    rssDelta: after.rss - before.rss,
    heapDelta: after.heapUsed - before.heapUsed,
    arrayBuffersDelta: after.arrayBuffers - before.arrayBuffers,
    servingRss: after.rss,
  };
}

/** What a corpus in `--dir` was generated with: a later run with the same values reuses it. */
interface CorpusParams {
  passages: number;
  vocabulary: number;
  zipf_exponent: number;
  queries: number;
  seed: number;
}

const SEED = 42;

export async function benchSearch(
  out: string,
  opts: SearchBenchOptions = {},
): Promise<Record<string, unknown>> {
  const passages = opts.passages ?? 1_000_000;
  const vocabularySize = opts.vocabulary ?? 50_000;
  const exponent = opts.zipfExponent ?? 1.0;
  const numQueries = opts.queries ?? 2000;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), "rlf-bench-search-"));
  mkdirSync(dir, { recursive: true });
  const corpus = join(dir, "synthetic-corpus.jsonl");
  const queriesFile = join(dir, "queries.txt");
  const corpusMeta = join(dir, "corpus.json");
  const indexDir = join(dir, "index");
  const log = (msg: string) => process.stderr.write(`[bench search] ${msg}\n`);
  let server: ChildProcess | undefined;
  try {
    // The corpus and queries: generated, or reused from an earlier run in the same --dir with the same values.
    const params: CorpusParams = {
      passages,
      vocabulary: vocabularySize,
      zipf_exponent: exponent,
      queries: numQueries,
      seed: SEED,
    };
    let queries: string[];
    const previous = existsSync(corpusMeta) ? JSON.parse(readFileSync(corpusMeta, "utf8")) : undefined;
    if (
      JSON.stringify(previous?.params) === JSON.stringify(params) &&
      existsSync(corpus) &&
      statSync(corpus).size === previous?.bytes &&
      existsSync(queriesFile)
    ) {
      queries = readFileSync(queriesFile, "utf8").trimEnd().split("\n");
      log(`corpus: reusing ${corpus} (${passages} passages) and its ${queries.length} queries`);
    } else {
      rmSync(corpusMeta, { force: true });
      const random = rng(SEED);
      const vocabulary = makeVocabulary(vocabularySize, random);
      const rank = zipfSampler(vocabulary.length, exponent, random);
      const word = () => vocabulary[rank()] as string;
      const t0 = performance.now();
      await writeCorpus(corpus, passages, word, random);
      queries = Array.from({ length: numQueries }, () =>
        Array.from({ length: 2 + Math.floor(random() * 5) }, word).join(" "),
      );
      writeFileSync(queriesFile, `${queries.join("\n")}\n`);
      writeFileSync(corpusMeta, `${JSON.stringify({ params, bytes: statSync(corpus).size })}\n`);
      log(
        `corpus: ${passages} passages, ${round(statSync(corpus).size / MB, 1)} MiB in ${round((performance.now() - t0) / 1000, 1)} s`,
      );
    }
    const corpusBytes = statSync(corpus).size;

    // Lucene on the same corpus and queries: after our queries, or beside our build (--concurrent-lucene).
    const jars: ReturnType<typeof luceneClasspath> = opts.noLucene
      ? { missing: "left out (--no-lucene)" }
      : luceneClasspath();
    const startLucene = (): Promise<LuceneReport> | undefined => {
      if ("missing" in jars) return undefined;
      rmSync(join(dir, "lucene-index"), { recursive: true, force: true });
      log("lucene: building its index and running the same queries");
      return runLucene(jars.classpath, {
        corpus,
        queries: queriesFile,
        indexDir: join(dir, "lucene-index"),
        k1: DEFAULT_BM25.k1,
        b: DEFAULT_BM25.b,
        topk: 10,
        out: join(dir, "lucene-report.json"),
      });
    };
    let luceneRun = opts.concurrentLucene ? startLucene() : undefined;
    // A failure is reported when awaited; until then it must not count as unhandled.
    luceneRun?.catch(() => {});

    let build: Awaited<ReturnType<typeof buildInChild>> | undefined;
    if (opts.reuseIndex && existsSync(join(indexDir, "meta.json"))) {
      log(`build: reusing the index in ${indexDir}`);
    } else {
      rmSync(indexDir, { recursive: true, force: true });
      build = await buildInChild(corpus, indexDir);
      log(
        `build: ${round(build.ms / 1000, 1)} s, ${round(build.cpu_ms / 1000, 1)} CPU-s, peak RSS ${round(build.peak_rss / MB)} MiB`,
      );
    }

    const measured = await inProcessPhase(corpus, indexDir, queries, opts.workers, log);
    const { inProcess, cpu, ourCpuMs, ourHits, workers } = measured;
    gc(); // the in-process index is garbage now: the server process below opens its own

    let lucene: Record<string, unknown> | undefined;
    luceneRun ??= startLucene();
    if (luceneRun === undefined) {
      lucene = { skipped: "missing" in jars ? jars.missing : "not run" };
      log(`lucene: skipped (${"missing" in jars ? jars.missing : "not run"})`);
    } else {
      // Our figures stay on record when the Lucene side fails (or is stopped): the run goes on without it.
      const report = await luceneRun.catch((err: Error) => err);
      if (report instanceof Error) {
        lucene = { failed: report.message };
        log(`lucene: failed (${report.message})`);
      }
    }
    if (luceneRun !== undefined && lucene === undefined) {
      const report = (await luceneRun) as LuceneReport;
      let identical = 0;
      for (const [i, hits] of report.hits.entries()) {
        if (JSON.stringify(hits.map(([id]) => id)) === JSON.stringify(ourHits[i])) identical++;
      }
      const luceneCpuMs = report.search_thread_cpu_ms / report.queries;
      lucene = {
        version: report.lucene,
        java: report.java,
        build_cpu_s: round(report.build_cpu_s, 1),
        index_on_disk_mb: round(report.index_bytes / MB, 1),
        cpu_ms_per_query: round(luceneCpuMs, 3),
        process_cpu_ms_per_query: round(report.search_process_cpu_ms / report.queries, 3),
        p50_ms: round(nearestRankPercentile(report.latency_ms, 50) ?? 0, 3),
        p99_ms: round(nearestRankPercentile(report.latency_ms, 99) ?? 0, 3),
        queries_per_s: round(report.queries / report.search_wall_s, 1),
        ours_over_lucene_cpu: round(ourCpuMs / luceneCpuMs, 2),
        top10_identical: identical,
        top10_compared: report.hits.length,
      };
      log(`lucene: ${JSON.stringify(lucene)}`);
    }

    const started = await startServer(corpus, indexDir);
    server = started.child;
    const url = `http://127.0.0.1:${started.info.port}/retrieve`;
    const call = async (i: number) => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ queries: [queries[i % queries.length]], topk: 10, return_scores: true }),
      });
      await response.arrayBuffer();
      return response.ok;
    };
    await measure(call, 16, 200); // warm-up: JIT, connections
    const c1 = await measure(call, 1, numQueries);
    const c16 = await measure(call, 16, numQueries);
    log(
      `/retrieve c1: p50 ${c1.p50_ms} ms, ${c1.throughput_per_s}/s | c16: p50 ${c16.p50_ms} ms, p99 ${c16.p99_ms} ms, ${c16.throughput_per_s}/s`,
    );

    const result = {
      benchmark: "search",
      date: new Date().toISOString(),
      node: process.version,
      corpus: {
        passages,
        words_per_passage: "80-120 (+2 title words)",
        vocabulary: vocabularySize,
        zipf_exponent: exponent,
        bytes: corpusBytes,
      },
      index: {
        terms: measured.terms,
        postings: measured.postings,
        tf_bytes: measured.tfBytes,
      },
      build: {
        ...(build
          ? {
              seconds: round(build.ms / 1000, 2),
              cpu_s: round(build.cpu_ms / 1000, 1),
              passages_per_s: Math.round(passages / (build.ms / 1000)),
              peak_rss_mb: round(build.peak_rss / MB, 1),
              segments: build.stats.segments,
            }
          : { reused: true }),
        index_memory_mb: round(measured.indexBytes / MB, 1),
        index_bytes_per_passage: round(measured.indexBytes / passages, 1),
        on_disk_mb: round(measured.diskBytes / MB, 1),
        on_disk_bytes_per_passage: round(measured.diskBytes / passages, 1),
      },
      open_in_process: {
        seconds: round(measured.openMs / 1000, 2),
        rss_mb: round(measured.servingRss / MB, 1),
        rss_delta_mb: round(measured.rssDelta / MB, 1),
        heap_delta_mb: round(measured.heapDelta / MB, 1),
        array_buffers_delta_mb: round(measured.arrayBuffersDelta / MB, 1),
      },
      load: {
        seconds: round((started.info.load_ms ?? 0) / 1000, 2),
        mapped: started.info.mapped === 1,
        server_rss_mb: round((started.info.rss ?? 0) / MB, 1),
        server_rss_anon_mb: round((started.info.rssAnon ?? 0) / MB, 1),
        server_rss_file_mb: round((started.info.rssFile ?? 0) / MB, 1),
        server_heap_used_mb: round((started.info.heapUsed ?? 0) / MB, 1),
      },
      queries: { count: numQueries, words: "2-6, Zipf-sampled from the vocabulary", topk: 10 },
      search_in_process: inProcess,
      search_cpu: cpu,
      lucene,
      retrieve_http: { c1, c16 },
      ...(workers ? { search_workers: workers } : {}),
    };
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    return result;
  } finally {
    server?.kill("SIGTERM");
    if (!opts.dir) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      out: { type: "string" },
      passages: { type: "string" },
      queries: { type: "string" },
      dir: { type: "string" },
      workers: { type: "string" },
      "concurrent-lucene": { type: "boolean" },
      "no-lucene": { type: "boolean" },
      "reuse-index": { type: "boolean" },
    },
    strict: true,
  });
  if (!values.out) {
    process.stderr.write(
      "usage: node test/bench/search.ts --out FILE.json [--passages N] [--queries N] [--dir DIR] [--workers N] [--concurrent-lucene] [--no-lucene] [--reuse-index]\n",
    );
    process.exit(2);
  }
  await benchSearch(values.out, {
    ...(values.passages ? { passages: Number(values.passages) } : {}),
    ...(values.queries ? { queries: Number(values.queries) } : {}),
    ...(values.dir ? { dir: values.dir } : {}),
    ...(values.workers ? { workers: Number(values.workers) } : {}),
    ...(values["concurrent-lucene"] ? { concurrentLucene: true } : {}),
    ...(values["no-lucene"] ? { noLucene: true } : {}),
    ...(values["reuse-index"] ? { reuseIndex: true } : {}),
  });
}
