// Each token's text for the Trajectory view, decoded with the tokenizer the run was made with
// (summary.json's config.tokenizer.path: `qwen3` or a Hugging Face model directory). A tokenizer is
// loaded once per path; one that cannot be loaded leaves the texts out and says why.
import { configuredTokenizer, type ModelTokenizer } from "@rlfactory/rollout";
import { z } from "zod";

export interface TokenTexts {
  prompt: string[];
  response: string[];
}

export type TokenTextsResult = { texts: TokenTexts; error: null } | { texts: null; error: string };

const summaryTokenizer = z.object({
  config: z.object({ tokenizer: z.object({ path: z.string() }) }),
});

const loaded = new Map<string, Promise<ModelTokenizer>>();

export async function tokenTexts(
  summary: unknown,
  ids: { prompt: readonly number[]; response: readonly number[] },
): Promise<TokenTextsResult> {
  const parsed = summaryTokenizer.safeParse(summary);
  if (!parsed.success)
    return { texts: null, error: "summary.json names no tokenizer (config.tokenizer.path)" };
  const path = parsed.data.config.tokenizer.path;
  let tokenizer: ModelTokenizer;
  try {
    let pending = loaded.get(path);
    if (pending === undefined) {
      pending = configuredTokenizer(path);
      loaded.set(path, pending);
      pending.catch(() => loaded.delete(path));
    }
    tokenizer = await pending;
  } catch (err) {
    return { texts: null, error: `tokenizer ${path}: ${(err as Error).message}` };
  }
  const decode = (id: number) => tokenizer.decode([id], { skipSpecialTokens: false });
  return { texts: { prompt: ids.prompt.map(decode), response: ids.response.map(decode) }, error: null };
}
