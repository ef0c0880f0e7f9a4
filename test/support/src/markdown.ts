// Reading the facts a Markdown doc states (tables, fenced blocks) so tests can hold them to the code.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./gateway-harness.ts";

export function readDoc(path: string): string {
  return readFileSync(join(ROOT, path), "utf8");
}

/** Splits one table row into trimmed cells; `\|` inside a cell is a literal pipe. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replaceAll("\\|", "|"));
}

/**
 * The rows of the one table whose header row starts with `firstHeader` (a table of that shape appearing
 * twice, or not at all, fails), each row keyed by the header cells.
 */
export function markdownTable(markdown: string, firstHeader: string): Record<string, string>[] {
  const lines = markdown.split("\n");
  const starts = lines
    .map((line, i) => ({ line, i }))
    .filter(
      ({ line, i }) =>
        line.startsWith("|") && cells(line)[0] === firstHeader && /^\|\s*-/.test(lines[i + 1] ?? ""),
    );
  if (starts.length !== 1)
    throw new Error(`expected one table headed "${firstHeader}", found ${starts.length}`);
  const start = starts[0]!.i;
  const header = cells(lines[start]!);
  const rows: Record<string, string>[] = [];
  for (let i = start + 2; i < lines.length && lines[i]!.startsWith("|"); i++) {
    const row = cells(lines[i]!);
    rows.push(Object.fromEntries(header.map((h, k) => [h, row[k] ?? ""])));
  }
  return rows;
}

/** The backticked spans of a cell, in order: "`a`, `b` (c)" → ["a", "b"]. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

/** The body of the first fenced block of language `lang` after the heading line `heading`. */
export function fencedBlockAfter(markdown: string, heading: string, lang: string): string {
  const at = markdown.split("\n").findIndex((l) => l.trim() === heading);
  if (at < 0) throw new Error(`no heading "${heading}"`);
  const rest = markdown
    .split("\n")
    .slice(at + 1)
    .join("\n");
  const block = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(rest)?.[1];
  if (block === undefined) throw new Error(`no \`\`\`${lang} block after "${heading}"`);
  return block;
}
