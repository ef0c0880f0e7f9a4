// One stage's artifacts: `DIR/stages/NN-stage.jsonl`, one record per item, appended as each item
// finishes (so a killed run keeps every finished item and resumes with the rest), rewritten in id
// order when the stage completes. A torn last line (the process died mid-write) is dropped on reading.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { TokenUsage } from "./chat-client.ts";

export type StageRecord<T> =
  | { id: string; ok: true; value: T; usage?: TokenUsage }
  | {
      id: string;
      ok: false;
      reason: string;
      detail: string;
      usage?: TokenUsage;
      data?: Record<string, unknown>;
    };

export class StageStore<T> {
  private readonly records = new Map<string, StageRecord<T>>();

  readonly path: string;

  constructor(path: string) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    if (!existsSync(path)) return;
    const lines = readFileSync(path, "utf8").split("\n");
    const kept: string[] = [];
    for (const line of lines) {
      if (line.trim() === "") continue;
      let record: StageRecord<T>;
      try {
        record = JSON.parse(line) as StageRecord<T>;
      } catch {
        continue; // a line torn by a kill: that item runs again
      }
      if (typeof record?.id !== "string") continue;
      this.records.set(record.id, record);
      kept.push(line);
    }
    // Rewrite without torn lines so appends start on a fresh line.
    writeFileSync(path, kept.map((l) => `${l}\n`).join(""));
  }

  has(id: string): boolean {
    return this.records.has(id);
  }

  get(id: string): StageRecord<T> | undefined {
    return this.records.get(id);
  }

  /** Records one finished item (appended at once: it survives a kill). */
  put(record: StageRecord<T>): void {
    this.records.set(record.id, record);
    appendFileSync(this.path, `${JSON.stringify(record)}\n`);
  }

  /** Every record, in id order. */
  all(): StageRecord<T>[] {
    return [...this.records.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The stage is complete: rewrite its file in id order (atomically). */
  seal(): void {
    const tmp = `${this.path}.tmp`;
    writeFileSync(
      tmp,
      this.all()
        .map((r) => `${JSON.stringify(r)}\n`)
        .join(""),
    );
    renameSync(tmp, this.path);
  }
}
