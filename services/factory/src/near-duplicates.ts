// Near-duplicate tasks: two questions whose word-trigram sets overlap (Jaccard) at least `threshold`
// are duplicates; of each group, the task with the smallest id stays (so the outcome does not depend
// on the order the tasks were made in).

function shingles(text: string): Set<string> {
  const words = text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, " ")
    .split(/\s+/)
    .filter((w) => w !== "");
  if (words.length < 3) return new Set([words.join(" ")]);
  const out = new Set<string>();
  for (let i = 0; i + 3 <= words.length; i++) out.add(words.slice(i, i + 3).join(" "));
  return out;
}

export function similarity(a: string, b: string): number {
  const x = shingles(a);
  const y = shingles(b);
  let common = 0;
  for (const s of x) if (y.has(s)) common++;
  const union = x.size + y.size - common;
  return union === 0 ? 1 : common / union;
}

/** For each duplicate task id, the id of the earlier task it duplicates (tasks taken in id order). */
export function nearDuplicates(
  tasks: { id: string; text: string }[],
  threshold: number,
): Map<string, { of: string; similarity: number }> {
  const sorted = [...tasks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const kept: { id: string; text: string }[] = [];
  const duplicates = new Map<string, { of: string; similarity: number }>();
  for (const task of sorted) {
    let match: { of: string; similarity: number } | undefined;
    for (const k of kept) {
      const s = similarity(task.text, k.text);
      if (s >= threshold) {
        match = { of: k.id, similarity: Math.round(s * 1000) / 1000 };
        break;
      }
    }
    if (match) duplicates.set(task.id, match);
    else kept.push(task);
  }
  return duplicates;
}
