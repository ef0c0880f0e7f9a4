// Runs Lucene (test/bench/LuceneSearchBench.java) on the search benchmark's corpus and queries, when
// Java and the Lucene 9.12 jars are present: LUCENE_CLASSPATH, or the jars where Maven puts them
//   mvn dependency:get -Dartifact=org.apache.lucene:lucene-core:9.12.0 -Dtransitive=false
//   mvn dependency:get -Dartifact=org.apache.lucene:lucene-analysis-common:9.12.0 -Dtransitive=false
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

export const LUCENE_VERSION = "9.12.0";
const PROGRAM = join(dirname(fileURLToPath(import.meta.url)), "LuceneSearchBench.java");

const LuceneReport = z.object({
  lucene: z.string(),
  java: z.string(),
  build_cpu_s: z.number(),
  build_wall_s: z.number(),
  index_bytes: z.number(),
  queries: z.number(),
  search_wall_s: z.number(),
  search_thread_cpu_ms: z.number(),
  search_process_cpu_ms: z.number(),
  latency_ms: z.array(z.number()),
  hits: z.array(z.array(z.tuple([z.string(), z.number()]))),
});
export type LuceneReport = z.infer<typeof LuceneReport>;

/** The classpath of Lucene's jars, or why there is none. */
export function luceneClasspath(): { classpath: string } | { missing: string } {
  try {
    execFileSync("java", ["-version"], { stdio: "ignore" });
  } catch {
    return { missing: "no java on PATH" };
  }
  if (process.env.LUCENE_CLASSPATH) return { classpath: process.env.LUCENE_CLASSPATH };
  const m2 = join(homedir(), ".m2/repository/org/apache/lucene");
  const jars = ["lucene-core", "lucene-analysis-common"].map((a) =>
    join(m2, a, LUCENE_VERSION, `${a}-${LUCENE_VERSION}.jar`),
  );
  const absent = jars.filter((jar) => !existsSync(jar));
  if (absent.length > 0)
    return { missing: `no Lucene jars (LUCENE_CLASSPATH unset; ${absent.join(", ")} absent)` };
  return { classpath: jars.join(":") };
}

export async function runLucene(
  classpath: string,
  args: {
    corpus: string;
    queries: string;
    indexDir: string;
    k1: number;
    b: number;
    topk: number;
    out: string;
  },
): Promise<LuceneReport> {
  const child = spawn(
    "java",
    [
      "-cp",
      classpath,
      PROGRAM,
      args.corpus,
      args.queries,
      args.indexDir,
      String(args.k1),
      String(args.b),
      String(args.topk),
      args.out,
    ],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  const code = await new Promise<number | null>((done) => child.once("exit", done));
  if (code !== 0) throw new Error(`Lucene benchmark exited with ${code}`);
  return LuceneReport.parse(JSON.parse(readFileSync(args.out, "utf8")));
}
