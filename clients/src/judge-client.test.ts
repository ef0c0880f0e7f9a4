// JudgeClient against the real judge service (`rlf judge` as a child process) over loopback gRPC, its
// model backend the simulated judge model: a score and a typed failure both resolve, a failed call
// rejects with its gRPC status, and a cancelled call rejects with the signal's reason and stops the
// judgment (the backend request it was waiting on is abandoned).
import { createServer } from "node:net";
import { type ServiceError, status } from "@grpc/grpc-js";
import { type ChildJudge, spawnJudge, writeConfig } from "@rlfactory/test-support/judge-harness";
import { type SimulatedJudge, startSimulatedJudge } from "@rlfactory/test-support/simulated-judge";
import { waitFor } from "@rlfactory/test-support/wait-for";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgeClient } from "./judge-client.ts";

describe("JudgeClient", () => {
  let sim: SimulatedJudge;
  let judge: ChildJudge;
  let client: JudgeClient;

  beforeAll(async () => {
    sim = await startSimulatedJudge({ script: () => ({ hang: true }) }); // the model never answers
    judge = await spawnJudge([
      "--config",
      writeConfig({ backend: { base_url: sim.url, model: "sim-judge", retries: 0 } }),
    ]);
    client = new JudgeClient(judge.grpcAddress);
  });
  afterAll(async () => {
    client?.close();
    await judge?.stop();
    await sim?.close();
  });

  it("resolves with a score, and with the service's typed failure", async () => {
    const scored = await client.judge({
      mode: "JUDGE_MODE_RULE",
      response: "Paris",
      reference: "paris",
      grader_json: JSON.stringify({ type: "string_check", operation: "ieq" }),
    });
    expect(scored).toMatchObject({ outcome: "score", score: { score: 1, metadata: { mode: "rule" } } });
    const refused = await client.judge({ mode: "JUDGE_MODE_RULE", response: "Paris", grader_json: "{" });
    expect(refused).toMatchObject({ outcome: "error", error: { code: "JUDGE_ERROR_INVALID_REQUEST" } });
  });

  it("a cancelled call rejects with the signal's reason and the judgment stops", async () => {
    const abort = new AbortController();
    const pending = client.judge(
      { mode: "JUDGE_MODE_POINTWISE", task: "t", response: "r" },
      { signal: abort.signal },
    );
    await waitFor(() => sim.inFlight() === 1, 10_000, "the judgment to reach the model");
    abort.abort(new Error("the caller left"));
    await expect(pending).rejects.toThrow("the caller left");
    await waitFor(() => sim.inFlight() === 0, 10_000, "the judge to abandon the model request");
    expect(() => client.judge({ mode: "JUDGE_MODE_RULE" }, { signal: abort.signal })).toThrow(
      "the caller left",
    );
  });

  it("a call past its deadline rejects DEADLINE_EXCEEDED; an unreachable judge UNAVAILABLE", async () => {
    const late = await client
      .judge({ mode: "JUDGE_MODE_POINTWISE", task: "t2", response: "r2" }, { deadlineMs: 200 })
      .catch((e: ServiceError) => e);
    expect(late).toMatchObject({ code: status.DEADLINE_EXCEEDED });
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const nowhere = new JudgeClient(`127.0.0.1:${port}`);
    try {
      const err = await nowhere.judge({ mode: "JUDGE_MODE_RULE" }).catch((e: ServiceError) => e);
      expect(err).toMatchObject({ code: status.UNAVAILABLE });
    } finally {
      nowhere.close();
    }
  });
});
