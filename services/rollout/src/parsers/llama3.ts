// Llama 3.x JSON tool calls: a turn that is (optionally `<|python_tag|>`-prefixed) JSON
// `{"name": ..., "parameters": {...}}` ("arguments" accepted too), or several such objects separated by
// `;` (vLLM's llama3_json convention); any other turn is plain text, the final answer. Observations are
// `role: "tool"` messages; Llama 3's template renders them under the `ipython` header.
import { scanJsonObjectEnd, skipWhitespace } from "./lenient-json.ts";
import { malformedCall } from "./malformed.ts";
import { toolMessages } from "./render-tool-result.ts";
import { parseCallBody } from "./tool-call-object.ts";
import type { MalformedCall, ParsedTurn, ToolCallFormat, ToolCallRequest } from "./types.ts";

const PYTHON_TAG = "<|python_tag|>";
/** End-of-message / end-of-turn tokens, present when the engine decodes special tokens. */
const TRAILING_SPECIALS = /(?:\s*(?:<\|eom_id\|>|<\|eot_id\|>))+\s*$/;
const SHAPE = {
  argumentKeys: ["parameters", "arguments"],
  example: '{"name": "server__tool", "parameters": {...}}',
} as const;

export function parseLlama3(text: string): ParsedTurn {
  let body = text.replace(TRAILING_SPECIALS, "").trim();
  const tagged = body.startsWith(PYTHON_TAG);
  if (tagged) body = body.slice(PYTHON_TAG.length).trim();
  if (!tagged && !body.startsWith("{")) {
    return body === "" ? { calls: [], malformed: [] } : { calls: [], answer: body, malformed: [] };
  }

  const calls: ToolCallRequest[] = [];
  const malformed: MalformedCall[] = [];
  let pos = 0;
  for (let index = 0; ; index++) {
    pos = skipWhitespace(body, pos);
    if (pos >= body.length) break;
    const objEnd = scanJsonObjectEnd(body, pos);
    if (objEnd === undefined) {
      // not an object, or one that never closes: parse the rest as is for a precise message
      const rest = body.slice(pos);
      const result = body[pos] === "{" ? parseCallBody(rest, rest, index, SHAPE) : undefined;
      const message = `tool call ${index + 1} is not a JSON object; write ${SHAPE.example}`;
      malformed.push(
        result && "code" in result ? result : malformedCall("INVALID_JSON", message, rest, index),
      );
      break;
    }
    const segment = body.slice(pos, objEnd);
    const result = parseCallBody(segment, segment, index, SHAPE);
    if ("code" in result) malformed.push(result);
    else calls.push(result);

    pos = skipWhitespace(body, objEnd);
    if (pos >= body.length) break;
    if (body[pos] !== ";") {
      const rest = body.slice(pos);
      const message = `unexpected text after tool call ${index + 1}; separate calls with ";" and write nothing else`;
      malformed.push(malformedCall("INVALID_JSON", message, rest, index + 1));
      break;
    }
    pos++;
  }
  return { calls, malformed };
}

export const llama3Format: ToolCallFormat = Object.freeze<ToolCallFormat>({
  name: "llama3",
  parse: parseLlama3,
  renderObservation: toolMessages,
  // <|eom_id|> and <|eot_id|> are EOS tokens in Llama 3.1's generation config: no stop strings needed
  stopSequences: Object.freeze([]),
});
