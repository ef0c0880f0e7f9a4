// Original file: proto/rlfactory/v1/judge.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { JudgeRequest as _rlfactory_v1_JudgeRequest, JudgeRequest__Output as _rlfactory_v1_JudgeRequest__Output } from '../../rlfactory/v1/JudgeRequest.ts';
import type { JudgeResponse as _rlfactory_v1_JudgeResponse, JudgeResponse__Output as _rlfactory_v1_JudgeResponse__Output } from '../../rlfactory/v1/JudgeResponse.ts';

export interface JudgeClient extends grpc.Client {
  /**
   * One judgment: a model judgment in one of four modes, or a rule grader.
   */
  Judge(argument: _rlfactory_v1_JudgeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_JudgeResponse__Output>): grpc.ClientUnaryCall;
  Judge(argument: _rlfactory_v1_JudgeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_JudgeResponse__Output>): grpc.ClientUnaryCall;
  Judge(argument: _rlfactory_v1_JudgeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_JudgeResponse__Output>): grpc.ClientUnaryCall;
  Judge(argument: _rlfactory_v1_JudgeRequest, callback: grpc.requestCallback<_rlfactory_v1_JudgeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * One judgment: a model judgment in one of four modes, or a rule grader.
   */
  judge(argument: _rlfactory_v1_JudgeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_JudgeResponse__Output>): grpc.ClientUnaryCall;
  judge(argument: _rlfactory_v1_JudgeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_JudgeResponse__Output>): grpc.ClientUnaryCall;
  judge(argument: _rlfactory_v1_JudgeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_JudgeResponse__Output>): grpc.ClientUnaryCall;
  judge(argument: _rlfactory_v1_JudgeRequest, callback: grpc.requestCallback<_rlfactory_v1_JudgeResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface JudgeHandlers extends grpc.UntypedServiceImplementation {
  /**
   * One judgment: a model judgment in one of four modes, or a rule grader.
   */
  Judge: grpc.handleUnaryCall<_rlfactory_v1_JudgeRequest__Output, _rlfactory_v1_JudgeResponse>;
  
}

export interface JudgeDefinition extends grpc.ServiceDefinition {
  Judge: MethodDefinition<_rlfactory_v1_JudgeRequest, _rlfactory_v1_JudgeResponse, _rlfactory_v1_JudgeRequest__Output, _rlfactory_v1_JudgeResponse__Output>
}
