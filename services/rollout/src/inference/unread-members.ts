// Members of a response body that the client never reads, dropped before it is parsed. vLLM's
// `logprobs` carries, beside the `token_logprobs` we read, `tokens` (a string per token), `top_logprobs`
// (an object per token) and `text_offset`, and with `prompt_logprobs` an object per prompt token: parsing
// them costs about as much as the rest of the body. vLLM also echoes the whole prompt as
// `choices[].prompt_token_ids` with `return_token_ids`: O(context) per turn. `unreadCutter` cuts the
// integer lists in the body's bytes, before it is decoded (their text is never made), then the other
// members in the text, by walking strings and brackets.

/**
 * A cutter for one kind of body: its bytes decoded as UTF-8 (a byte-order mark kept, as
 * `Buffer#toString` does), with the value of every `"key":[…]` named in `idArrays` or `members`
 * replaced by `null` (a key in both is cut as a member). Only the exact spelling `"key":[` is cut (no
 * space before the bracket, as vLLM and Python's json write it; its opening quote not preceded by a
 * backslash). `"key":[` cannot sit inside a JSON string (a quote there is escaped), so only members of
 * those names are touched. Never throws; anything else stays as it was:
 * - an `idArrays` value is cut when its brackets hold only an integer list (digits, commas, minus
 *   signs, ASCII whitespace). It is found and cut in the bytes: UTF-8 puts no ASCII byte inside a
 *   multi-byte character, so the text around a cut is what decoding the whole body gives;
 * - a `members` value is skipped as JSON text: strings with their escapes (a bracket or quote inside a
 *   string does not count), nested arrays and objects with matching brackets; it must be followed by
 *   `,` or `}`. Anything unexpected (an unterminated string, mismatched brackets, the end of the text)
 *   leaves that value as it was.
 */
export function unreadCutter(
  idArrays: readonly string[],
  members: readonly string[],
): (body: Buffer) => string {
  const idKeys = new Set(idArrays.filter((k) => !members.includes(k)));
  const ends = new Map<string, ValueEnd>(members.map((k) => [k, memberEnd]));
  return (body) => nullMembers(idArraysCut(body, idKeys), ends);
}

const KEY_END = Buffer.from('":[');

/**
 * `body` as text, with the value of every `"key":[…]` whose key is in `keys` and whose brackets hold only
 * an integer list replaced by `null`: one pass over the bytes, each `":[` found, the key before it read.
 */
function idArraysCut(body: Buffer, keys: ReadonlySet<string>): string {
  if (keys.size === 0) return body.toString("utf8");
  let out = "";
  let copied = 0; // body[0, copied) is in `out`
  let from = 0;
  for (;;) {
    const quote = body.indexOf(KEY_END, from);
    if (quote < 0) break;
    from = quote + 3;
    const open = quote === 0 ? -1 : body.lastIndexOf(QUOTE, quote - 1);
    if (open < 0 || (open > 0 && body[open - 1] === BACKSLASH)) continue;
    if (!keys.has(body.toString("utf8", open + 1, quote))) continue;
    const bracket = quote + 2;
    const stop = integerListEnd(body, bracket);
    if (stop < 0) continue;
    out += `${body.toString("utf8", copied, bracket)}null`;
    copied = stop;
    from = stop;
  }
  return copied === 0 ? body.toString("utf8") : out + body.toString("utf8", copied);
}

/** Index just past the integer list whose bracket is at `start` (digits, commas, minus signs, ASCII whitespace), or -1. */
function integerListEnd(body: Buffer, start: number): number {
  for (let i = start + 1; i < body.length; i++) {
    const c = body[i]!;
    if (c === CLOSE_ARRAY) return i + 1;
    const allowed = (c >= 48 && c <= 57) || c === COMMA || c === MINUS || c === 32 || (c >= 9 && c <= 13);
    if (!allowed) return -1;
  }
  return -1;
}

/** Index just past a member's array value whose bracket is at `start`, or -1 (see unreadCutter). */
function memberEnd(text: string, start: number): number {
  const end = valueEnd(text, start);
  return end >= 0 && endsMember(text, end) ? end : -1;
}

/** Where a value ends: the index just past the value whose opening bracket is at `bracket`, or -1 to leave it. */
type ValueEnd = (text: string, bracket: number) => number;

/**
 * `text` with the value of every `"key":[…]` whose key is in `ends` (exact spelling, its opening quote
 * not preceded by a backslash) replaced by `null`, where the key's `ValueEnd` says where its value ends,
 * or -1 to leave that one as it was. One pass over the text for all keys: each `":[` found, the key
 * before it looked up; a value cut is not scanned again, one left as it was is scanned inside.
 */
function nullMembers(text: string, ends: ReadonlyMap<string, ValueEnd>): string {
  if (ends.size === 0) return text;
  let out = "";
  let copied = 0; // text[0, copied) is in `out`
  let from = 0;
  for (;;) {
    const quote = text.indexOf('":[', from);
    if (quote < 0) break;
    from = quote + 3;
    const open = text.lastIndexOf('"', quote - 1);
    if (open < 0 || (open > 0 && text.charCodeAt(open - 1) === BACKSLASH)) continue;
    const end = ends.get(text.slice(open + 1, quote));
    if (end === undefined) continue;
    const bracket = quote + 2;
    const stop = end(text, bracket);
    if (stop < 0) continue;
    out += `${text.slice(copied, bracket)}null`;
    copied = stop;
    from = stop;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

const BACKSLASH = 92;
const COMMA = 44;
const MINUS = 45;
const CLOSE_OBJECT = 125;

// A JSON array as text, up to MAX_DEPTH brackets deep: strings skipped whole with their escapes (a
// bracket or quote inside one does not count), arrays and objects with matching brackets, anything else
// character by character. Written unambiguously (a run of plain characters always ends at a quote or a
// bracket; a string's body is the unrolled `[^"\\]*(?:\\.[^"\\]*)*`), so a text that does not match fails
// in linear time; irregexp's compiled matcher walks it several times faster than a loop over charCodeAt.
const MAX_DEPTH = 6;
const STRING = String.raw`"[^"\\]*(?:\\[\s\S][^"\\]*)*"`;
const PLAIN = String.raw`[^"[\]{}]*`;
const ARRAY = (() => {
  let inner = `${PLAIN}(?:${STRING}${PLAIN})*`;
  for (let depth = 1; depth < MAX_DEPTH; depth++) {
    inner = `${PLAIN}(?:(?:${STRING}|\\[${inner}\\]|\\{${inner}\\})${PLAIN})*`;
  }
  return new RegExp(`\\[${inner}\\]`, "y");
})();

/**
 * Index just past the array whose opening bracket is at `start`, or -1 when it is not one: ARRAY first,
 * and for what it does not match (deeper than MAX_DEPTH, or malformed) the walk of `skipArray`.
 */
function valueEnd(text: string, start: number): number {
  ARRAY.lastIndex = start;
  return ARRAY.test(text) ? ARRAY.lastIndex : skipArray(text, start);
}

const QUOTE = 34;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const OPEN_OBJECT = 123;

/** ARRAY's job at any depth, one character at a time: -1 when brackets do not match or the text ends first. */
function skipArray(text: string, start: number): number {
  const closers: number[] = [];
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return -1;
    } else if (c === OPEN_ARRAY) {
      closers.push(CLOSE_ARRAY);
    } else if (c === OPEN_OBJECT) {
      closers.push(CLOSE_OBJECT);
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (closers.pop() !== c) return -1;
      if (closers.length === 0) return i + 1;
    }
  }
  return -1;
}

/** Index of the quote closing the string whose opening quote is at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
    from = q + 1;
  }
}

/** Whether what follows a member's value (after JSON whitespace) is `,` or `}`. */
function endsMember(text: string, end: number): boolean {
  let i = end;
  let c = text.charCodeAt(i);
  while (c === 32 || c === 9 || c === 10 || c === 13) c = text.charCodeAt(++i);
  return c === COMMA || c === CLOSE_OBJECT;
}
