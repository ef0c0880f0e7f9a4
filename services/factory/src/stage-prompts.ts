// The system prompt of each stage. The first line names the stage (`rlf-env-build stage: NAME`); the
// user message is the item's input as one JSON object; the reply is one JSON object of the stage's
// shape (stage-shapes.ts).

export type StageName = "decompose" | "document" | "integrate" | "scale" | "deploy" | "repair";

const HEADER = (stage: StageName) => `rlf-env-build stage: ${stage}\n`;
const JSON_ONLY = "Reply with one JSON object and nothing else.";

const STRUCTURE_TEXT = `Structures:
- single_hop: one sub-question answers the question (one branch of one hop).
- parallel_single_hop: two or more independent sub-questions, each answered in one step, combined at the end.
- multi_hop: a chain: each sub-question needs the answer of the one before (one branch, two or more hops).
- parallel_multi_hop: two or more independent branches, at least one of them a chain of two or more hops.`;

export const STAGE_PROMPTS: Record<StageName, string> = {
  decompose: `${HEADER("decompose")}You decompose a question into the sub-questions a tool-using agent would answer one tool call at a time.
Input: {"question"?: str, "answer"?: str, "scenario"?: str, "question_number"?: int, "questions"?: int, "structures": [allowed structures], "max_sub_questions": int}.
If "scenario" is given instead of a question, first write one realistic question about that scenario whose answer is a short fact, and its answer. With "questions": N and "question_number": K, write the K-th of N distinct questions about the scenario (a different aspect or structure for each K).
If "answer" is given, keep it as the final answer.
${STRUCTURE_TEXT}
Pick the structure among "structures" that fits the question. Every sub-question is concrete and self-contained (name the entity from the earlier answer, do not say "it"); every sub-answer is a short fact (a name, a number, a date).
${JSON_ONLY} Shape: {"question": str, "answer": str, "structure": str, "branches": [[{"question": str, "answer": str}, ...], ...]}`,

  document: `${HEADER("document")}You write one tool document per sub-question: the API a tool-using agent would call to answer it.
Input: {"question": str, "sub_questions": [{"key": str, "question": str, "answer": str}]}.
For each sub-question write a tool: a snake_case name describing its function (not the entity), a description of what it does and returns, its parameters as a JSON Schema object, and the arguments of the call that answers this sub-question. Tools are general functions (a lookup by entity, a search, a conversion), never hard-wired to one question.
${JSON_ONLY} Shape: {"documents": [{"sub": key, "name": str, "description": str, "parameters": {"type": "object", "properties": {...}, "required": [...]}, "arguments": {...}}]}`,

  integrate: `${HEADER("integrate")}You merge tool documents whose functionality overlaps into one tool.
Input: {"question": str, "sub_questions": [...], "documents": [...]} (as written by the document stage).
Documents that do the same kind of thing (two lookups of the same attribute, two searches of the same source) become one tool with the union of their parameters; the others stay as they are. Every sub-question is answered by exactly one call of one tool; keep the call's arguments valid for the merged tool's parameters.
${JSON_ONLY} Shape: {"tools": [{"name": str, "description": str, "parameters": {...}, "calls": [{"sub": key, "arguments": {...}}]}]}`,

  scale: `${HEADER("scale")}You make a toolset harder to use without changing what its calls return.
Input: {"question": str, "sub_questions": [...], "tools": [...], "strategies": [...], "distractors": int}.
Apply each strategy listed:
- functional_generalization: widen each tool's function (a lookup of one attribute becomes a lookup of any attribute, chosen by a parameter) and update its description.
- parameter_expansion: add optional parameters (filters, limits, formats) with defaults that leave the answer unchanged.
- parameter_type_generalization: use richer parameter types where natural (enum, integer, number, boolean, array, object) instead of plain strings.
- toolset_extension: write "distractors" extra tools that are plausible in this domain but useless for this question, each with example_arguments.
Keep every tool's calls (update the arguments to the new parameters) so each still answers its sub-question. Keep tool names unique.
${JSON_ONLY} Shape: {"tools": [{"name", "description", "parameters", "calls": [{"sub", "arguments"}]}], "distractors": [{"name", "description", "parameters", "example_arguments": {...}}]}`,

  deploy: `${HEADER("deploy")}You implement a tool document as a local Python function that simulates the tool.
Input: {"tool": {"name", "description", "parameters"}, "calls": [{"question": str, "arguments": {...}, "answer": str}], "distractor": bool} (each call answers its sub-question; a distractor's one call is an example, with no question or answer).
Write Python 3 source defining \`def <name>(**arguments)\` (or named keyword parameters matching the schema, with defaults for optional ones) that returns a JSON-able value, usually a short string. Called with the arguments of each call it must return text containing that call's answer; for other arguments it returns a plausible, consistent result. Use only the standard library; the function must be deterministic (no randomness, no clock), must not touch the network, files or processes, and must return fast.
${JSON_ONLY} Shape: {"code": str}`,

  repair: `${HEADER("repair")}A generated Python tool failed its validation. Fix it.
Input: {"tool": {"name", "description", "parameters"}, "calls": [{"question", "arguments", "answer"}], "distractor": bool, "code": str, "failure": {"reason": str, "detail": str}}.
The rules are those of the deploy stage: \`def <name>(...)\` returning a JSON-able value that contains each call's answer for its arguments; deterministic; standard library only; no network, files or processes; fast.
${JSON_ONLY} Shape: {"code": str}`,
};
