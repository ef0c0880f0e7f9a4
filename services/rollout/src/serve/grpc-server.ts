// The gRPC surface: rlfactory.v1.RolloutService, grpc.health.v1 and server reflection (grpcurl works).
//
// Each handler: decode and validate the request (INVALID_ARGUMENT on any problem) → run it on the
// engine with an AbortSignal that fires when the client cancels or its deadline passes → send groups.
import { once } from "node:events";
import {
  Metadata,
  type ServerUnaryCall,
  type ServerWritableStream,
  type StatusObject,
  type sendUnaryData,
  status,
} from "@grpc/grpc-js";
import { groupToProto, requestFromProto } from "@rlfactory/clients";
import { policyVersionFromText } from "@rlfactory/contracts";
import { callerGone, type GrpcHost, startGrpcHost } from "@rlfactory/kit";
import type { GetPolicyVersionRequest__Output } from "@rlfactory/proto/types/GetPolicyVersionRequest";
import type { PolicyVersionState as ProtoPolicyState } from "@rlfactory/proto/types/PolicyVersionState";
import type { RolloutBatchResponse } from "@rlfactory/proto/types/RolloutBatchResponse";
import type { RolloutRequest__Output } from "@rlfactory/proto/types/RolloutRequest";
import type { RolloutServiceHandlers } from "@rlfactory/proto/types/RolloutService";
import type { SetPolicyVersionRequest__Output } from "@rlfactory/proto/types/SetPolicyVersionRequest";
import type { TrajectoryGroup as ProtoGroup } from "@rlfactory/proto/types/TrajectoryGroup";
import type { Logger } from "pino";
import type { RolloutEngine, TrajectoryGroup } from "../rollout/rollout-engine.ts";
import { grpcStatusFor } from "./errors.ts";
import type { PolicyVersionState, PolicyVersionView } from "./policy-version.ts";
import { loadRolloutProto, ROLLOUT_SERVICE } from "./proto.ts";
import type { RequestGuard } from "./request-guard.ts";
import { type ParsedRolloutRequest, parseRolloutRequest } from "./rollout-request.ts";
import { runRollout } from "./run-rollout.ts";
import type { RunTracker } from "./run-tracker.ts";

export interface RolloutGrpcDeps {
  engine: RolloutEngine;
  versions: PolicyVersionState;
  log: Logger;
  /** Fires when the service stops: requests in flight end with their trajectories `aborted`. */
  stopping: AbortSignal;
  /** API keys and the inference allow-list. */
  guard: RequestGuard;
  /** Records each request as a run (served over HTTP, GET /v1/runs). */
  tracker?: RunTracker;
}

export type RolloutGrpcServer = GrpcHost;

export async function startRolloutGrpcServer(
  deps: RolloutGrpcDeps,
  opts: { host: string; port: number; maxMessageBytes: number },
): Promise<RolloutGrpcServer> {
  const { definition, grpc } = loadRolloutProto();
  return startGrpcHost({
    definition,
    serviceName: ROLLOUT_SERVICE,
    addServices: (server) =>
      server.addService(grpc.rlfactory.v1.RolloutService.service, guarded(deps.guard, rolloutHandlers(deps))),
    ...opts,
  });
}

/**
 * Every RolloutService method behind the API-key check (health and reflection need none): a call
 * without a key ends UNAUTHENTICATED before its request is looked at.
 */
function guarded(guard: RequestGuard, handlers: RolloutServiceHandlers): RolloutServiceHandlers {
  if (!guard.authEnabled) return handlers;
  const out: Record<string, unknown> = {};
  for (const [name, handler] of Object.entries(handlers)) {
    out[name] = (call: ServerUnaryCall<unknown, unknown>, callback?: sendUnaryData<unknown>) => {
      const authorization = call.metadata.get("authorization")[0];
      try {
        guard.authenticate(typeof authorization === "string" ? authorization : undefined);
      } catch (err) {
        if (callback) callback(statusError(err));
        else call.emit("error", statusError(err));
        return;
      }
      (handler as (c: unknown, cb?: unknown) => void)(call, callback);
    };
  }
  return out as RolloutServiceHandlers;
}

function rolloutHandlers(deps: RolloutGrpcDeps): RolloutServiceHandlers {
  return {
    Rollout: (call: ServerWritableStream<RolloutRequest__Output, ProtoGroup>) => {
      const request = decode(deps, call.request, (e) => call.emit("error", e));
      if (!request) return;
      run(deps, call, request, "Rollout", async (group, gone) => {
        if (!call.write(groupToProto(group))) await once(call, "drain", { signal: gone });
      }).then(
        () => {
          if (!call.cancelled) call.end();
        },
        (err: unknown) => {
          if (!call.cancelled) call.emit("error", statusError(err));
        },
      );
    },

    RolloutBatch: (
      call: ServerUnaryCall<RolloutRequest__Output, RolloutBatchResponse>,
      callback: sendUnaryData<RolloutBatchResponse>,
    ) => {
      const request = decode(deps, call.request, (e) => callback(e));
      if (!request) return;
      const groups: ProtoGroup[] = [];
      run(deps, call, request, "RolloutBatch", (group) => {
        groups.push(groupToProto(group));
      }).then(
        () => callback(null, { groups }),
        (err: unknown) => callback(statusError(err)),
      );
    },

    SetPolicyVersion: (
      call: ServerUnaryCall<SetPolicyVersionRequest__Output, ProtoPolicyState>,
      callback: sendUnaryData<ProtoPolicyState>,
    ) => {
      if (call.request.version === "") {
        callback({ code: status.INVALID_ARGUMENT, details: "version must not be empty" });
        return;
      }
      const state = deps.versions.set(policyVersionFromText(call.request.version));
      deps.log.info({ version: state.version }, "policy version set");
      callback(null, policyStateToProto(state));
    },

    GetPolicyVersion: (
      _call: ServerUnaryCall<GetPolicyVersionRequest__Output, ProtoPolicyState>,
      callback: sendUnaryData<ProtoPolicyState>,
    ) => {
      callback(null, policyStateToProto(deps.versions.view()));
    },
  };
}

function policyStateToProto(v: PolicyVersionView): ProtoPolicyState {
  return {
    on_stale: v.on_stale,
    ...(v.version === null ? {} : { version: String(v.version) }),
    ...(v.max_staleness === null ? {} : { max_staleness: v.max_staleness }),
  };
}

/** Runs a decoded request for one call; `send` gets the signal that fires when the caller is gone. */
function run(
  deps: RolloutGrpcDeps,
  call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>,
  request: ParsedRolloutRequest,
  via: string,
  send: (group: TrajectoryGroup, gone: AbortSignal) => Promise<void> | void,
) {
  const gone = callerGone(call);
  return runRollout({
    engine: deps.engine,
    versions: deps.versions,
    request,
    callerGone: gone.signal,
    stop: deps.stopping,
    log: deps.log,
    via,
    ...(deps.tracker && { tracker: deps.tracker }),
    send: (group) => send(group, gone.signal),
  }).finally(gone.done);
}

/**
 * The validated request, or undefined after reporting INVALID_ARGUMENT (or PERMISSION_DENIED for an
 * inference server outside the allow-list) through `fail`.
 */
function decode(
  deps: RolloutGrpcDeps,
  message: RolloutRequest__Output,
  fail: (e: Partial<StatusObject>) => void,
): ParsedRolloutRequest | undefined {
  try {
    const request = parseRolloutRequest(requestFromProto(message));
    deps.guard.checkInference(request);
    return request;
  } catch (err) {
    fail(statusError(err));
    return undefined;
  }
}

function statusError(err: unknown): Partial<StatusObject> & Error {
  const { code, details } = grpcStatusFor(err);
  return Object.assign(new Error(details), { code, details, metadata: new Metadata() });
}
