// A rollout request in its JSON form and as a RolloutRequest message (through protobuf bytes) must
// reach the engine as the same arguments, and be rejected with the same messages.

import {
  RolloutRequestError,
  type RolloutRequestInput,
  requestFromProto,
  requestToProto,
  samplingOverridesSchema,
} from "@rlfactory/clients";
import { describe, expect, it } from "vitest";
import { samplingParamsSchema } from "../inference/types.ts";
import { loadRolloutProto } from "./proto.ts";
import { parseRolloutRequest } from "./rollout-request.ts";

const method = loadRolloutProto().grpc.rlfactory.v1.RolloutService.service.RolloutBatch;

/** What the server does with a client's request: encode, bytes, decode, validate. */
function viaProto(input: RolloutRequestInput) {
  return parseRolloutRequest(
    requestFromProto(method.requestDeserialize(method.requestSerialize(requestToProto(input)))),
  );
}

const full: RolloutRequestInput = {
  tasks: [
    {
      id: "hotpot-1",
      data_source: "hotpotqa",
      prompt: [
        { role: "system", content: "Answer with <answer>." },
        { role: "user", content: "Who wrote Dune?", name: "alice" },
      ],
      ground_truth: { target: ["Frank Herbert"] },
      extra_info: { split: "dev", index: 3 },
    },
    { id: "plain", prompt: [{ role: "user", content: "2+2?" }] },
  ],
  group_size: 8,
  sampling: { temperature: 0.7, top_p: 0.95, top_k: -1, max_tokens: 512, stop: ["</answer>"], seed: 1234 },
  max_turns: 4,
  policy_version: 17,
};

describe("rollout request", () => {
  it("reaches the engine with the same tasks and options over gRPC as in JSON", () => {
    const expected = {
      tasks: [
        {
          id: "hotpot-1",
          data_source: "hotpotqa",
          prompt: [
            { role: "system", content: "Answer with <answer>." },
            { role: "user", content: "Who wrote Dune?", name: "alice" },
          ],
          ground_truth: { target: ["Frank Herbert"] },
          extra_info: { split: "dev", index: 3 },
        },
        { id: "plain", data_source: "unknown", prompt: [{ role: "user", content: "2+2?" }], extra_info: {} },
      ],
      options: {
        groupSize: 8,
        sampling: {
          temperature: 0.7,
          top_p: 0.95,
          top_k: -1,
          max_tokens: 512,
          stop: ["</answer>"],
          seed: 1234,
        },
        maxTurns: 4,
        policyVersion: 17,
      },
    };
    expect(parseRolloutRequest(full)).toEqual(expected);
    expect(viaProto(full)).toEqual(expected);
  });

  it("carries the request's own servers with the logprobs they return, over gRPC as in JSON", () => {
    const body = {
      tasks: [{ id: "a", prompt: [{ role: "user" as const, content: "hi" }] }],
      inference: {
        urls: ["http://gpu-0:8000"],
        engine: "vllm" as const,
        logprobs_mode: "processed" as const,
      },
    };
    const inference = { urls: ["http://gpu-0:8000"], engine: "vllm", logprobsMode: "processed" };
    expect(parseRolloutRequest(body).options.inference).toEqual(inference);
    expect(viaProto(body).options.inference).toEqual(inference);
    const none = { ...body, inference: { urls: ["http://gpu-0:8000"] } };
    expect(viaProto(none).options.inference).toEqual({ urls: ["http://gpu-0:8000"] });
    const bad = { ...body, inference: { urls: ["http://gpu-0:8000"], logprobs_mode: "raw_logits" } };
    expect(() => parseRolloutRequest(bad)).toThrow(/inference\.logprobs_mode/);
  });

  it("leaves every option to the server's config when the request sets none", () => {
    const minimal = { tasks: [{ id: "a", prompt: [{ role: "user" as const, content: "hi" }] }] };
    expect(parseRolloutRequest(minimal).options).toEqual({});
    expect(viaProto(minimal).options).toEqual({});
  });

  it.each([
    [{ tasks: [] }, /tasks: a rollout needs at least one task/],
    [{}, /tasks: /],
    [{ tasks: [{ id: "a", prompt: [] }] }, /tasks\[0\]\.prompt: /],
    [{ tasks: [{ id: "", prompt: [{ role: "user", content: "x" }] }] }, /tasks\[0\]\.id: /],
    [{ tasks: [{ id: "a", prompt: [{ role: "robot", content: "x" }] }] }, /tasks\[0\]\.prompt\[0\]\.role: /],
    [
      {
        tasks: [
          { id: "a", prompt: [{ role: "user", content: "x" }] },
          { id: "a", prompt: [{ role: "user", content: "y" }] },
        ],
      },
      /tasks\[1\]\.id: "a" is also the id of tasks\[0\]/,
    ],
    [
      { tasks: [{ id: "a", prompt: [{ role: "user", content: "x" }] }], group_size: 0 },
      /group_size: must be between 1 and 1024/,
    ],
    [
      { tasks: [{ id: "a", prompt: [{ role: "user", content: "x" }] }], group_size: 1025 },
      /group_size: must be between 1 and 1024/,
    ],
    [
      { tasks: [{ id: "a", prompt: [{ role: "user", content: "x" }] }], max_turns: 0 },
      /max_turns: must be at least 1/,
    ],
    [
      { tasks: [{ id: "a", prompt: [{ role: "user", content: "x" }] }], sampling: { top_p: 0 } },
      /sampling\.top_p: /,
    ],
    [{ tasks: [{ id: "a", prompt: [{ role: "user", content: "x" }] }], groupSize: 4 }, /groupSize/],
  ])("rejects %j with a message naming the field", (body, message) => {
    expect(() => parseRolloutRequest(body)).toThrow(RolloutRequestError);
    expect(() => parseRolloutRequest(body)).toThrow(message);
  });

  it("rejects JSON text fields of the message that are not JSON, naming them", () => {
    const message = requestToProto({ tasks: [{ id: "a", prompt: [{ role: "user", content: "x" }] }] });
    const badTruth = { ...message, tasks: [{ ...message.tasks![0], ground_truth_json: "{oops" }] };
    expect(() => requestFromProto(method.requestDeserialize(method.requestSerialize(badTruth)))).toThrow(
      /tasks\[0\]\.ground_truth_json: not JSON/,
    );
    const listInfo = { ...message, tasks: [{ ...message.tasks![0], extra_info_json: "[1]" }] };
    expect(() => requestFromProto(method.requestDeserialize(method.requestSerialize(listInfo)))).toThrow(
      /tasks\[0\]\.extra_info_json: must be a JSON object/,
    );
  });

  it("offers an override for every sampling parameter", () => {
    expect(Object.keys(samplingOverridesSchema.shape).sort()).toEqual(
      Object.keys(samplingParamsSchema.shape).sort(),
    );
  });
});

describe("a conversation task in the JSON form", () => {
  it("keeps its tools, later turns and user simulator, and names the task's bad field", () => {
    const task = {
      id: "chat-1",
      prompt: [{ role: "user" as const, content: "Hello." }],
      tools: ["calculator__calculate"],
      turns: [{ content: "Now 6 * 7?", tools: [] }],
    };
    expect(parseRolloutRequest({ tasks: [task] }).tasks[0]).toMatchObject({
      tools: task.tools,
      turns: task.turns,
    });
    const simulated = {
      id: "chat-2",
      prompt: task.prompt,
      user_simulator: { instruction: "Ask for 6 * 7." },
    };
    expect(parseRolloutRequest({ tasks: [simulated] }).tasks[0]?.user_simulator).toEqual(
      simulated.user_simulator,
    );
    expect(() => parseRolloutRequest({ tasks: [{ ...task, turns: [{ content: "" }] }] })).toThrow(
      /tasks\.0\.turns\.0\.content|tasks\[0\]\.turns\[0\]\.content/,
    );
  });
});

describe("a conversation or environment task as a RolloutRequest message", () => {
  const bfcl: RolloutRequestInput["tasks"][number] = {
    id: "multi_turn_base_0",
    data_source: "bfcl",
    prompt: [{ role: "user", content: "Go to the document folder." }],
    environment: {
      server: "bfcl",
      config: {
        involved_classes: ["GorillaFileSystem"],
        initial_config: { GorillaFileSystem: { root: {} } },
      },
    },
    tool_aliases: { cd: "bfcl__cd", ls: "bfcl__ls" },
    tools: ["cd"],
    turns: [
      { content: "List it.", tools: ["cd", "ls"], ground_truth: [{ name: "ls", arguments: {} }] },
      { content: "Done?", tools: [] },
      { content: "Thanks." },
    ],
  };
  const simulated: RolloutRequestInput["tasks"][number] = {
    id: "chat-2",
    prompt: [{ role: "user", content: "Hello." }],
    user_simulator: { instruction: "Ask for 6 * 7.", persona: "terse" },
    tools: [],
  };

  it("keeps environment, turns (per-turn tools and ground truth), tool_aliases, tools and user_simulator", () => {
    const input = { tasks: [bfcl, simulated] };
    expect(viaProto(input)).toEqual(parseRolloutRequest(input));
    const [env, chat] = viaProto(input).tasks;
    expect(env?.environment?.config).toEqual(bfcl.environment?.config);
    expect(env?.turns?.map((t) => t.tools)).toEqual([["cd", "ls"], [], undefined]);
    expect(chat?.tools).toEqual([]);
    expect(chat?.user_simulator).toEqual({ instruction: "Ask for 6 * 7.", persona: "terse" });
  });

  it("gives an environment without config the empty config, and names bad JSON text fields", () => {
    const bare = { tasks: [{ ...bfcl, environment: { server: "bfcl" } }] };
    expect(viaProto(bare).tasks[0]?.environment).toEqual({ server: "bfcl", config: {} });
    const message = requestToProto({ tasks: [bfcl] });
    const badConfig = {
      ...message,
      tasks: [{ ...message.tasks![0], environment: { server: "bfcl", config_json: "[1]" } }],
    };
    expect(() => requestFromProto(method.requestDeserialize(method.requestSerialize(badConfig)))).toThrow(
      /tasks\[0\]\.environment\.config_json: must be a JSON object/,
    );
    const badTurn = {
      ...message,
      tasks: [{ ...message.tasks![0], turns: [{ content: "x", ground_truth_json: "{oops" }] }],
    };
    expect(() => requestFromProto(method.requestDeserialize(method.requestSerialize(badTurn)))).toThrow(
      /tasks\[0\]\.turns\[0\]\.ground_truth_json: not JSON/,
    );
  });
});
