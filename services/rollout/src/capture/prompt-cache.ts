// The ids of recent first prompts, so a GRPO group's members (the same task, so the same first request:
// system prompt, tools, question) have it encoded once. Keyed by the exact rendered text, so a hit is
// the encoding itself; least recently used entries go first.
import type { ModelTokenizer } from "../tokenizer/model-tokenizer.ts";

export class PromptCache {
  readonly #tokenizer: ModelTokenizer;
  readonly #max: number;
  readonly #entries = new Map<string, readonly number[]>();

  constructor(tokenizer: ModelTokenizer, max = 256) {
    this.#tokenizer = tokenizer;
    this.#max = max;
  }

  /** `tokenizer.encode(text)`, from the cache when this text was encoded recently (a fresh array). */
  encode(text: string): number[] {
    const hit = this.#entries.get(text);
    if (hit !== undefined) {
      this.#entries.delete(text);
      this.#entries.set(text, hit);
      return [...hit];
    }
    const ids = this.#tokenizer.encode(text);
    this.#entries.set(text, ids);
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    return [...ids];
  }
}
