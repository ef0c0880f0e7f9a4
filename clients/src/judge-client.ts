// A small promise-based client of rlfactory.v1.Judge (judge.proto's generated types), used by the
// rollout engine's `judge` reward component, scripts and tests. A judgment's own failure is a normal
// answer of the service (status OK, `error` set, see judge.proto): `judge()` resolves with it. The call
// itself failing (unreachable, deadline, cancelled) rejects with the gRPC ServiceError (`code`,
// `details`), or with the signal's reason once `signal` aborts.
import { credentials, Metadata, type ServiceClientConstructor, type ServiceError } from "@grpc/grpc-js";
import { context } from "@opentelemetry/api";
import { loadServiceProto, PROTO_FILES } from "@rlfactory/proto/load-service-proto";
import type { JudgeClient as ProtoJudgeClient } from "@rlfactory/proto/types/Judge";
import type { JudgeRequest } from "@rlfactory/proto/types/JudgeRequest";
import type { JudgeResponse__Output } from "@rlfactory/proto/types/JudgeResponse";
import { injectGrpcMetadata } from "@rlfactory/telemetry/grpc-metadata";

export interface JudgeClientOptions {
  /** Sent as `authorization: Bearer KEY` (for a proxy or gateway in front of the judge). */
  apiKey?: string;
  /** Default RPC deadline in ms (0: none); a call's own `deadlineMs` wins. */
  rpcTimeoutMs?: number;
  /** Largest message either side accepts (default 16 MiB, the service's default). */
  maxMessageBytes?: number;
}

export interface JudgeCallOptions {
  /** Cancels the call: the service aborts the judgment. */
  signal?: AbortSignal;
  /** gRPC deadline in ms from now. */
  deadlineMs?: number;
}

export class JudgeClient {
  readonly raw: ProtoJudgeClient;
  readonly address: string;
  #apiKey: string | undefined;
  #rpcTimeoutMs: number;

  constructor(address: string, opts: JudgeClientOptions = {}) {
    const Ctor = judgeClientConstructor();
    const max = opts.maxMessageBytes ?? 16 * 1024 * 1024;
    this.address = address;
    this.raw = new Ctor(address, credentials.createInsecure(), {
      "grpc.max_receive_message_length": max,
      "grpc.max_send_message_length": max,
    }) as unknown as ProtoJudgeClient;
    this.#apiKey = opts.apiKey;
    this.#rpcTimeoutMs = opts.rpcTimeoutMs ?? 0;
  }

  /** One judgment: the score, or the service's typed failure (`outcome` says which). */
  judge(request: JudgeRequest, opts: JudgeCallOptions = {}): Promise<JudgeResponse__Output> {
    opts.signal?.throwIfAborted();
    const md = new Metadata();
    if (this.#apiKey) md.set("authorization", `Bearer ${this.#apiKey}`);
    injectGrpcMetadata(md, context.active());
    const timeoutMs = opts.deadlineMs ?? this.#rpcTimeoutMs;
    const callOpts = timeoutMs > 0 ? { deadline: Date.now() + timeoutMs } : {};
    const { signal } = opts;
    return new Promise<JudgeResponse__Output>((resolve, reject) => {
      const call = this.raw.Judge(
        request,
        md,
        callOpts,
        (err: ServiceError | null, res?: JudgeResponse__Output) => {
          signal?.removeEventListener("abort", cancel);
          if (signal?.aborted) reject(signal.reason);
          else if (err || !res) reject(err ?? new Error("Judge returned no response"));
          else resolve(res);
        },
      );
      const cancel = () => call.cancel();
      signal?.addEventListener("abort", cancel, { once: true });
    });
  }

  close(): void {
    this.raw.close();
  }
}

function judgeClientConstructor(): ServiceClientConstructor {
  return loadServiceProto(PROTO_FILES.judge).clientConstructor("Judge");
}
