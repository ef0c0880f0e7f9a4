// Integer arrays in a response body that the client never reads, dropped from the text before it is
// parsed. vLLM echoes the whole prompt as `choices[].prompt_token_ids` with `return_token_ids`: parsing
// it costs O(context) per turn (a number object per id) for a field nobody looks at.

/**
 * `text` with the value of every `"key":[…]` whose brackets hold only an integer list (digits, commas,
 * minus signs, whitespace) replaced by `null`. Only the exact spelling `"key":[` (no space before the
 * bracket, as vLLM and Python's json write it) is cut; anything else stays as it was. The pattern cannot
 * sit inside a JSON string (a quote there is escaped), so only a member of that name is touched.
 */
export function nullUnreadIdArrays(text: string, keys: readonly string[]): string {
  let out = text;
  for (const key of keys) {
    const open = `"${key}":[`;
    let from = 0;
    for (;;) {
      const at = out.indexOf(open, from);
      if (at < 0) break;
      const start = at + open.length - 1;
      const end = out.indexOf("]", start);
      if (end < 0 || (at > 0 && out[at - 1] === "\\") || !INTEGER_LIST.test(out.slice(start + 1, end))) {
        from = at + open.length;
        continue;
      }
      out = `${out.slice(0, start)}null${out.slice(end + 1)}`;
      from = start + 4;
    }
  }
  return out;
}

const INTEGER_LIST = /^[\d,\s-]*$/;
