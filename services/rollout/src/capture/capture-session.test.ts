// The tool calls of a captured session (real Qwen3 tokenizer, no server): each call is tied to the
// sampled turn that made it and answered by the agent's `role: "tool"` message naming its id, in
// whatever order the agent sends them; malformed attempts are recorded as our own loop records them.
import { beforeAll, describe, expect, it } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { CaptureSession } from "./capture-session.ts";

let tok: ModelTokenizer;
beforeAll(async () => {
  tok = await qwen3Tokenizer();
});

/** Records one request whose prompt is `text` and whose sampled turn is `reply` (its ids, logprob -1). */
function exchange(session: CaptureSession, text: string, reply: string) {
  const prepared = session.prepare(text);
  const ids = tok.encode(reply);
  return session.commit("chat", text, prepared, {
    ids,
    logprobs: ids.map(() => -1),
    finishReason: "stop",
    weightVersion: null,
  });
}

describe("CaptureSession tool calls", () => {
  it("pairs results with calls by id, in the model's order, on the turn that made them", () => {
    let clock = 100;
    const session = new CaptureSession("t", tok, undefined, () => clock);
    const first = exchange(
      session,
      "<|im_start|>user\nfind both<|im_end|>\n<|im_start|>assistant\n",
      "calls",
    );
    // two calls and a malformed attempt between them, in the order the model wrote them
    session.recordCalls(
      first.request,
      [
        { id: "call_b", name: "search", arguments: { q: "b" }, index: 2 },
        { id: "call_a", name: "search", arguments: { q: "a" }, index: 0 },
      ],
      [{ raw: "<tool_call>{oops", code: "UNCLOSED_TAG", message: "close the tag", index: 1 }],
    );
    clock = 130;
    // the agent answers b before a, and names an id the session never gave out
    session.recordResults([
      { role: "user", content: "find both" },
      { role: "tool", tool_call_id: "call_b", content: "B" },
      { role: "tool", tool_call_id: "call_zz", content: "stray" },
      { role: "tool", tool_call_id: "call_a", content: "A" },
    ]);
    clock = 500;
    // a later request repeats the same tool messages: the first answer stands
    session.recordResults([{ role: "tool", tool_call_id: "call_a", content: "A again" }]);

    const [t] = session.trajectories({ taskId: "task", groupId: "g", sampleIndex: 0 });
    expect(
      t!.tool_calls.map((c) => [c.name, c.arguments, c.result, c.latency_ms, c.error_code, c.turn]),
    ).toEqual([
      ["search", { q: "a" }, "A", 30, null, 0],
      ["", "<tool_call>{oops", "close the tag", 0, "MALFORMED_UNCLOSED_TAG", 0],
      ["search", { q: "b" }, "B", 30, null, 0],
    ]);
    expect(t!.tool_calls.map((c) => c.is_error)).toEqual([false, true, false]);
  });

  it("a call never answered keeps an empty result; a request that sampled nothing records no calls", () => {
    const session = new CaptureSession("t", tok, undefined, () => 0);
    const r = exchange(session, "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n", "done");
    session.recordCalls(r.request, [
      { id: "call_0", name: "final_answer", arguments: { answer: "x" }, index: 0 },
    ]);
    session.recordCalls(99, [{ id: "call_9", name: "ghost", arguments: {}, index: 0 }]);
    const [t] = session.trajectories({ taskId: "task", groupId: "g", sampleIndex: 0 });
    expect(t!.tool_calls.map((c) => [c.name, c.result, c.latency_ms, c.turn])).toEqual([
      ["final_answer", "", 0, 0],
    ]);
    expect((t!.metadata!.capture as { divergences: number }).divergences).toBe(0);
  });
});
