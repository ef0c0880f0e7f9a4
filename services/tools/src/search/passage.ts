// A retrieval passage in the Search-R1 / FlashRAG corpus format: `contents` is `"Title"\nbody`.

export interface Passage {
  id: string;
  contents: string;
}

/** Splits `contents` into the title (first line, surrounding double quotes removed) and the body. */
export function splitContents(contents: string): { title: string; text: string } {
  const newline = contents.indexOf("\n");
  const firstLine = newline === -1 ? contents : contents.slice(0, newline);
  const text = newline === -1 ? "" : contents.slice(newline + 1);
  const title =
    firstLine.length >= 2 && firstLine.startsWith('"') && firstLine.endsWith('"')
      ? firstLine.slice(1, -1)
      : firstLine;
  return { title, text };
}

/** The inverse of splitContents: Search-R1's `"Title"\nbody`. */
export function joinContents(title: string, text: string): string {
  return `"${title}"\n${text}`;
}

/**
 * Search-R1's rendering of retrieved passages for the model, byte for byte: `Doc i(Title: t) text`
 * per passage, where `t` is the first line of `contents` as stored — quotes included, as Search-R1's
 * `_passages2string` does — so a policy trained on Search-R1 sees the observations it knows.
 */
export function renderPassages(passages: readonly { title: string; text: string }[]): string {
  return passages
    .map((p, i) => `Doc ${i + 1}(Title: ${joinContents(p.title, "").trimEnd()}) ${p.text}\n`)
    .join("");
}
