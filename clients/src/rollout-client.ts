// A typed gRPC client of rlfactory.v1.RolloutService: requests in their JSON form (what POST /v1/rollout
// takes), groups back as the engine's `TrajectoryGroup` with validated trajectory records. For tests,
// scripts and TypeScript training-engine adapters.
import { credentials, type ServiceClientConstructor, type ServiceError } from "@grpc/grpc-js";
import type { TrajectoryGroup } from "@rlfactory/contracts";
import { loadServiceProto, PROTO_FILES } from "@rlfactory/proto/load-service-proto";
import type { RolloutBatchResponse__Output } from "@rlfactory/proto/types/RolloutBatchResponse";
import type { RolloutServiceClient } from "@rlfactory/proto/types/RolloutService";
import type { TrajectoryGroup__Output } from "@rlfactory/proto/types/TrajectoryGroup";
import { type RolloutRequestInput, requestToProto } from "./rollout-request.ts";
import { groupFromProto } from "./trajectory-codec.ts";

/** Largest message either side accepts by default: a batch of long trajectories runs to many MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export interface RolloutCallOptions {
  /** Cancels the call: the server aborts the request (its in-flight trajectories end `aborted`). */
  signal?: AbortSignal;
  /** gRPC deadline in ms from now; passing it aborts the request like a cancel. */
  deadlineMs?: number;
}

export class RolloutClient {
  readonly raw: RolloutServiceClient;

  constructor(address: string, opts: { maxMessageBytes?: number } = {}) {
    const Ctor = rolloutClientConstructor();
    const max = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.raw = new Ctor(address, credentials.createInsecure(), {
      "grpc.max_receive_message_length": max,
      "grpc.max_send_message_length": max,
    }) as unknown as RolloutServiceClient;
  }

  /**
   * Streams the groups as the server completes them. Throws the gRPC ServiceError (`code`, `details`)
   * on a failed call, or the signal's reason once `signal` aborts. Leaving the loop early cancels the call.
   */
  async *rollout(
    request: RolloutRequestInput,
    opts: RolloutCallOptions = {},
  ): AsyncGenerator<TrajectoryGroup> {
    opts.signal?.throwIfAborted();
    const call = this.raw.Rollout(requestToProto(request), callOptions(opts));
    const cancel = () => call.cancel();
    opts.signal?.addEventListener("abort", cancel, { once: true });
    try {
      for await (const message of call as AsyncIterable<TrajectoryGroup__Output>) {
        yield groupFromProto(message);
      }
    } catch (err) {
      opts.signal?.throwIfAborted();
      throw err;
    } finally {
      opts.signal?.removeEventListener("abort", cancel);
      call.cancel(); // no-op once the call has ended; stops the server when the caller left the loop
    }
  }

  /** Every group at once (order of completion). */
  async rolloutBatch(
    request: RolloutRequestInput,
    opts: RolloutCallOptions = {},
  ): Promise<TrajectoryGroup[]> {
    opts.signal?.throwIfAborted();
    const response = await new Promise<RolloutBatchResponse__Output>((resolve, reject) => {
      const call = this.raw.RolloutBatch(
        requestToProto(request),
        callOptions(opts),
        (err: ServiceError | null, res?: RolloutBatchResponse__Output) => {
          opts.signal?.removeEventListener("abort", cancel);
          if (opts.signal?.aborted) reject(opts.signal.reason);
          else if (err || !res) reject(err ?? new Error("RolloutBatch returned no response"));
          else resolve(res);
        },
      );
      const cancel = () => call.cancel();
      opts.signal?.addEventListener("abort", cancel, { once: true });
    });
    return response.groups.map(groupFromProto);
  }

  close(): void {
    this.raw.close();
  }
}

function rolloutClientConstructor(): ServiceClientConstructor {
  return loadServiceProto(PROTO_FILES.rollout).clientConstructor("RolloutService");
}

function callOptions(opts: RolloutCallOptions): { deadline?: number } {
  return opts.deadlineMs === undefined ? {} : { deadline: Date.now() + opts.deadlineMs };
}
