// Integer arrays in a response body that the client never reads, dropped from the text before it is
// parsed. vLLM echoes the whole prompt as `choices[].prompt_token_ids` with `return_token_ids`: parsing
// it costs O(context) per turn (a number object per id) for a field nobody looks at.

import { nullMembers } from "./unread-members.ts";

/**
 * `text` with the value of every `"key":[…]` whose brackets hold only an integer list (digits, commas,
 * minus signs, whitespace) replaced by `null`. Only the exact spelling `"key":[` (no space before the
 * bracket, as vLLM and Python's json write it) is cut; anything else stays as it was. The pattern cannot
 * sit inside a JSON string (a quote there is escaped), so only a member of that name is touched.
 */
export function nullUnreadIdArrays(text: string, keys: readonly string[]): string {
  return nullMembers(text, keys, (json, start) => {
    const close = json.indexOf("]", start);
    return close >= 0 && INTEGER_LIST.test(json.slice(start + 1, close)) ? close + 1 : -1;
  });
}

const INTEGER_LIST = /^[\d,\s-]*$/;
