// The gRPC surface: rlfactory.v1.Judge, grpc.health.v1 (SERVING once up) and server reflection
// (grpcurl works). A judgment's failure is a normal response (`error` set, status OK); the call's
// cancellation or passed gRPC deadline aborts the judgment. Trace context comes from the metadata.
import type { ServerUnaryCall, sendUnaryData } from "@grpc/grpc-js";
import { callerGone, type GrpcHost, startGrpcHost } from "@rlfactory/kit";
import type { JudgeHandlers } from "@rlfactory/proto/types/Judge";
import type { JudgeRequest__Output } from "@rlfactory/proto/types/JudgeRequest";
import type { JudgeResponse } from "@rlfactory/proto/types/JudgeResponse";
import { contextFromGrpcMetadata } from "@rlfactory/telemetry";
import type { Judgments } from "./judgments.ts";
import { JUDGE_SERVICE, loadJudgeProto, outcomeToProto, requestFromProto } from "./proto-codec.ts";

export async function startJudgeGrpcServer(
  judgments: Judgments,
  opts: { host: string; port: number; maxMessageBytes: number },
): Promise<GrpcHost> {
  const { definition, grpc } = loadJudgeProto();
  const host = await startGrpcHost({
    definition,
    serviceName: JUDGE_SERVICE,
    addServices: (server) => server.addService(grpc.rlfactory.v1.Judge.service, handlers(judgments)),
    ...opts,
  });
  host.health.setStatus("", "SERVING");
  host.health.setStatus(JUDGE_SERVICE, "SERVING");
  return host;
}

function handlers(judgments: Judgments): JudgeHandlers {
  return {
    Judge: (
      call: ServerUnaryCall<JudgeRequest__Output, JudgeResponse>,
      callback: sendUnaryData<JudgeResponse>,
    ) => {
      const gone = callerGone(call);
      judgments
        .run(requestFromProto(call.request), {
          transport: "grpc",
          spanName: `${JUDGE_SERVICE}/Judge`,
          parent: contextFromGrpcMetadata(call.metadata),
          signal: gone.signal,
        })
        .then((outcome) => callback(null, outcomeToProto(outcome)))
        .finally(gone.done);
    },
  };
}
