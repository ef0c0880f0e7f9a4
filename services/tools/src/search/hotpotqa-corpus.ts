// `rlf data hotpotqa`: turns HotpotQA records (question + 10 context paragraphs each) into a
// Search-R1 retrieval corpus, one passage per distinct (title, paragraph).
import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { joinContents, type Passage } from "./passage.ts";

// The Hugging Face `datasets` layout (hotpotqa/hotpot_qa): columns per record.
const HfContext = z.object({ title: z.array(z.string()), sentences: z.array(z.array(z.string())) });
// The original HotpotQA release layout: [[title, [sentence, ...]], ...].
const OriginalContext = z.array(z.tuple([z.string(), z.array(z.string())]));
const HotpotqaRecord = z.object({ context: z.union([HfContext, OriginalContext]) });
const HotpotqaFile = z.array(HotpotqaRecord);

export type HotpotqaContext = z.infer<typeof HotpotqaRecord>["context"];

/** The (title, paragraph) pairs of one record's context, paragraphs rebuilt by joining sentences. */
export function contextParagraphs(context: HotpotqaContext): { title: string; text: string }[] {
  const pairs: [string, string[]][] = Array.isArray(context)
    ? context
    : context.title.map((title, i): [string, string[]] => [title, context.sentences[i] ?? []]);
  // Sentences keep their leading spaces (" He lives ..."), so they join with "".
  return pairs.map(([title, sentences]) => ({ title, text: sentences.join("").trim() }));
}

/** Parses HotpotQA JSON (either layout) into passages with sequential string ids, deduplicated. */
export function hotpotqaPassages(json: unknown): Passage[] {
  const records = HotpotqaFile.parse(json);
  const seen = new Set<string>();
  const passages: Passage[] = [];
  for (const record of records) {
    for (const { title, text } of contextParagraphs(record.context)) {
      const key = JSON.stringify([title, text]);
      if (seen.has(key)) continue;
      seen.add(key);
      passages.push({ id: String(passages.length), contents: joinContents(title, text) });
    }
  }
  return passages;
}

/**
 * Reads HotpotQA records from `inFile` (a JSON array, HF or original layout) and writes their
 * context paragraphs to `outFile` as Search-R1 JSONL (`{"id","contents"}` per line).
 */
export async function buildHotpotqaCorpus(inFile: string, outFile: string): Promise<{ passages: number }> {
  const passages = hotpotqaPassages(JSON.parse(await readFile(inFile, "utf8")));
  await writeFile(outFile, passages.map((p) => `${JSON.stringify(p)}\n`).join(""));
  return { passages: passages.length };
}
