// Original file: proto/rlfactory/v1/rollout.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { GetPolicyVersionRequest as _rlfactory_v1_GetPolicyVersionRequest, GetPolicyVersionRequest__Output as _rlfactory_v1_GetPolicyVersionRequest__Output } from '../../rlfactory/v1/GetPolicyVersionRequest.ts';
import type { PolicyVersionState as _rlfactory_v1_PolicyVersionState, PolicyVersionState__Output as _rlfactory_v1_PolicyVersionState__Output } from '../../rlfactory/v1/PolicyVersionState.ts';
import type { RolloutBatchResponse as _rlfactory_v1_RolloutBatchResponse, RolloutBatchResponse__Output as _rlfactory_v1_RolloutBatchResponse__Output } from '../../rlfactory/v1/RolloutBatchResponse.ts';
import type { RolloutRequest as _rlfactory_v1_RolloutRequest, RolloutRequest__Output as _rlfactory_v1_RolloutRequest__Output } from '../../rlfactory/v1/RolloutRequest.ts';
import type { SetPolicyVersionRequest as _rlfactory_v1_SetPolicyVersionRequest, SetPolicyVersionRequest__Output as _rlfactory_v1_SetPolicyVersionRequest__Output } from '../../rlfactory/v1/SetPolicyVersionRequest.ts';
import type { TrajectoryGroup as _rlfactory_v1_TrajectoryGroup, TrajectoryGroup__Output as _rlfactory_v1_TrajectoryGroup__Output } from '../../rlfactory/v1/TrajectoryGroup.ts';

export interface RolloutServiceClient extends grpc.Client {
  GetPolicyVersion(argument: _rlfactory_v1_GetPolicyVersionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  GetPolicyVersion(argument: _rlfactory_v1_GetPolicyVersionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  GetPolicyVersion(argument: _rlfactory_v1_GetPolicyVersionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  GetPolicyVersion(argument: _rlfactory_v1_GetPolicyVersionRequest, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  getPolicyVersion(argument: _rlfactory_v1_GetPolicyVersionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  getPolicyVersion(argument: _rlfactory_v1_GetPolicyVersionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  getPolicyVersion(argument: _rlfactory_v1_GetPolicyVersionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  getPolicyVersion(argument: _rlfactory_v1_GetPolicyVersionRequest, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  
  /**
   * Runs every task group_size times; each group is sent as soon as all its samples are finished and
   * scored (order of completion, not of input). The stream ends once every group is sent.
   */
  Rollout(argument: _rlfactory_v1_RolloutRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_rlfactory_v1_TrajectoryGroup__Output>;
  Rollout(argument: _rlfactory_v1_RolloutRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_rlfactory_v1_TrajectoryGroup__Output>;
  /**
   * Runs every task group_size times; each group is sent as soon as all its samples are finished and
   * scored (order of completion, not of input). The stream ends once every group is sent.
   */
  rollout(argument: _rlfactory_v1_RolloutRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_rlfactory_v1_TrajectoryGroup__Output>;
  rollout(argument: _rlfactory_v1_RolloutRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_rlfactory_v1_TrajectoryGroup__Output>;
  
  /**
   * The same rollout, answered once with every group (order of completion).
   */
  RolloutBatch(argument: _rlfactory_v1_RolloutRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_RolloutBatchResponse__Output>): grpc.ClientUnaryCall;
  RolloutBatch(argument: _rlfactory_v1_RolloutRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_RolloutBatchResponse__Output>): grpc.ClientUnaryCall;
  RolloutBatch(argument: _rlfactory_v1_RolloutRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_RolloutBatchResponse__Output>): grpc.ClientUnaryCall;
  RolloutBatch(argument: _rlfactory_v1_RolloutRequest, callback: grpc.requestCallback<_rlfactory_v1_RolloutBatchResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The same rollout, answered once with every group (order of completion).
   */
  rolloutBatch(argument: _rlfactory_v1_RolloutRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_RolloutBatchResponse__Output>): grpc.ClientUnaryCall;
  rolloutBatch(argument: _rlfactory_v1_RolloutRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_RolloutBatchResponse__Output>): grpc.ClientUnaryCall;
  rolloutBatch(argument: _rlfactory_v1_RolloutRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_RolloutBatchResponse__Output>): grpc.ClientUnaryCall;
  rolloutBatch(argument: _rlfactory_v1_RolloutRequest, callback: grpc.requestCallback<_rlfactory_v1_RolloutBatchResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Tells the service the trainer's current weight version (after each weight sync). Requests that
   * name no policy_version record this one, and finished groups are checked against it for staleness.
   */
  SetPolicyVersion(argument: _rlfactory_v1_SetPolicyVersionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  SetPolicyVersion(argument: _rlfactory_v1_SetPolicyVersionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  SetPolicyVersion(argument: _rlfactory_v1_SetPolicyVersionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  SetPolicyVersion(argument: _rlfactory_v1_SetPolicyVersionRequest, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  /**
   * Tells the service the trainer's current weight version (after each weight sync). Requests that
   * name no policy_version record this one, and finished groups are checked against it for staleness.
   */
  setPolicyVersion(argument: _rlfactory_v1_SetPolicyVersionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  setPolicyVersion(argument: _rlfactory_v1_SetPolicyVersionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  setPolicyVersion(argument: _rlfactory_v1_SetPolicyVersionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  setPolicyVersion(argument: _rlfactory_v1_SetPolicyVersionRequest, callback: grpc.requestCallback<_rlfactory_v1_PolicyVersionState__Output>): grpc.ClientUnaryCall;
  
}

export interface RolloutServiceHandlers extends grpc.UntypedServiceImplementation {
  GetPolicyVersion: grpc.handleUnaryCall<_rlfactory_v1_GetPolicyVersionRequest__Output, _rlfactory_v1_PolicyVersionState>;
  
  /**
   * Runs every task group_size times; each group is sent as soon as all its samples are finished and
   * scored (order of completion, not of input). The stream ends once every group is sent.
   */
  Rollout: grpc.handleServerStreamingCall<_rlfactory_v1_RolloutRequest__Output, _rlfactory_v1_TrajectoryGroup>;
  
  /**
   * The same rollout, answered once with every group (order of completion).
   */
  RolloutBatch: grpc.handleUnaryCall<_rlfactory_v1_RolloutRequest__Output, _rlfactory_v1_RolloutBatchResponse>;
  
  /**
   * Tells the service the trainer's current weight version (after each weight sync). Requests that
   * name no policy_version record this one, and finished groups are checked against it for staleness.
   */
  SetPolicyVersion: grpc.handleUnaryCall<_rlfactory_v1_SetPolicyVersionRequest__Output, _rlfactory_v1_PolicyVersionState>;
  
}

export interface RolloutServiceDefinition extends grpc.ServiceDefinition {
  GetPolicyVersion: MethodDefinition<_rlfactory_v1_GetPolicyVersionRequest, _rlfactory_v1_PolicyVersionState, _rlfactory_v1_GetPolicyVersionRequest__Output, _rlfactory_v1_PolicyVersionState__Output>
  Rollout: MethodDefinition<_rlfactory_v1_RolloutRequest, _rlfactory_v1_TrajectoryGroup, _rlfactory_v1_RolloutRequest__Output, _rlfactory_v1_TrajectoryGroup__Output>
  RolloutBatch: MethodDefinition<_rlfactory_v1_RolloutRequest, _rlfactory_v1_RolloutBatchResponse, _rlfactory_v1_RolloutRequest__Output, _rlfactory_v1_RolloutBatchResponse__Output>
  SetPolicyVersion: MethodDefinition<_rlfactory_v1_SetPolicyVersionRequest, _rlfactory_v1_PolicyVersionState, _rlfactory_v1_SetPolicyVersionRequest__Output, _rlfactory_v1_PolicyVersionState__Output>
}
