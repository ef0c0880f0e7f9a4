import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { ChatMessage as _rlfactory_v1_ChatMessage, ChatMessage__Output as _rlfactory_v1_ChatMessage__Output } from './rlfactory/v1/ChatMessage.ts';
import type { GetPolicyVersionRequest as _rlfactory_v1_GetPolicyVersionRequest, GetPolicyVersionRequest__Output as _rlfactory_v1_GetPolicyVersionRequest__Output } from './rlfactory/v1/GetPolicyVersionRequest.ts';
import type { GroupStats as _rlfactory_v1_GroupStats, GroupStats__Output as _rlfactory_v1_GroupStats__Output } from './rlfactory/v1/GroupStats.ts';
import type { InferenceTarget as _rlfactory_v1_InferenceTarget, InferenceTarget__Output as _rlfactory_v1_InferenceTarget__Output } from './rlfactory/v1/InferenceTarget.ts';
import type { PolicyVersionState as _rlfactory_v1_PolicyVersionState, PolicyVersionState__Output as _rlfactory_v1_PolicyVersionState__Output } from './rlfactory/v1/PolicyVersionState.ts';
import type { RewardError as _rlfactory_v1_RewardError, RewardError__Output as _rlfactory_v1_RewardError__Output } from './rlfactory/v1/RewardError.ts';
import type { RolloutBatchResponse as _rlfactory_v1_RolloutBatchResponse, RolloutBatchResponse__Output as _rlfactory_v1_RolloutBatchResponse__Output } from './rlfactory/v1/RolloutBatchResponse.ts';
import type { RolloutRequest as _rlfactory_v1_RolloutRequest, RolloutRequest__Output as _rlfactory_v1_RolloutRequest__Output } from './rlfactory/v1/RolloutRequest.ts';
import type { RolloutServiceClient as _rlfactory_v1_RolloutServiceClient, RolloutServiceDefinition as _rlfactory_v1_RolloutServiceDefinition } from './rlfactory/v1/RolloutService.ts';
import type { SamplingOverrides as _rlfactory_v1_SamplingOverrides, SamplingOverrides__Output as _rlfactory_v1_SamplingOverrides__Output } from './rlfactory/v1/SamplingOverrides.ts';
import type { SetPolicyVersionRequest as _rlfactory_v1_SetPolicyVersionRequest, SetPolicyVersionRequest__Output as _rlfactory_v1_SetPolicyVersionRequest__Output } from './rlfactory/v1/SetPolicyVersionRequest.ts';
import type { Task as _rlfactory_v1_Task, Task__Output as _rlfactory_v1_Task__Output } from './rlfactory/v1/Task.ts';
import type { TaskEnvironment as _rlfactory_v1_TaskEnvironment, TaskEnvironment__Output as _rlfactory_v1_TaskEnvironment__Output } from './rlfactory/v1/TaskEnvironment.ts';
import type { TaskTurn as _rlfactory_v1_TaskTurn, TaskTurn__Output as _rlfactory_v1_TaskTurn__Output } from './rlfactory/v1/TaskTurn.ts';
import type { ToolCallRecord as _rlfactory_v1_ToolCallRecord, ToolCallRecord__Output as _rlfactory_v1_ToolCallRecord__Output } from './rlfactory/v1/ToolCallRecord.ts';
import type { ToolCallUsage as _rlfactory_v1_ToolCallUsage, ToolCallUsage__Output as _rlfactory_v1_ToolCallUsage__Output } from './rlfactory/v1/ToolCallUsage.ts';
import type { ToolNames as _rlfactory_v1_ToolNames, ToolNames__Output as _rlfactory_v1_ToolNames__Output } from './rlfactory/v1/ToolNames.ts';
import type { Trajectory as _rlfactory_v1_Trajectory, Trajectory__Output as _rlfactory_v1_Trajectory__Output } from './rlfactory/v1/Trajectory.ts';
import type { TrajectoryGroup as _rlfactory_v1_TrajectoryGroup, TrajectoryGroup__Output as _rlfactory_v1_TrajectoryGroup__Output } from './rlfactory/v1/TrajectoryGroup.ts';
import type { TrajectoryImage as _rlfactory_v1_TrajectoryImage, TrajectoryImage__Output as _rlfactory_v1_TrajectoryImage__Output } from './rlfactory/v1/TrajectoryImage.ts';
import type { Turn as _rlfactory_v1_Turn, Turn__Output as _rlfactory_v1_Turn__Output } from './rlfactory/v1/Turn.ts';
import type { UserSimulator as _rlfactory_v1_UserSimulator, UserSimulator__Output as _rlfactory_v1_UserSimulator__Output } from './rlfactory/v1/UserSimulator.ts';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  rlfactory: {
    v1: {
      ChatMessage: MessageTypeDefinition<_rlfactory_v1_ChatMessage, _rlfactory_v1_ChatMessage__Output>
      GetPolicyVersionRequest: MessageTypeDefinition<_rlfactory_v1_GetPolicyVersionRequest, _rlfactory_v1_GetPolicyVersionRequest__Output>
      GroupStats: MessageTypeDefinition<_rlfactory_v1_GroupStats, _rlfactory_v1_GroupStats__Output>
      InferenceTarget: MessageTypeDefinition<_rlfactory_v1_InferenceTarget, _rlfactory_v1_InferenceTarget__Output>
      PolicyVersionState: MessageTypeDefinition<_rlfactory_v1_PolicyVersionState, _rlfactory_v1_PolicyVersionState__Output>
      RewardError: MessageTypeDefinition<_rlfactory_v1_RewardError, _rlfactory_v1_RewardError__Output>
      RolloutBatchResponse: MessageTypeDefinition<_rlfactory_v1_RolloutBatchResponse, _rlfactory_v1_RolloutBatchResponse__Output>
      RolloutRequest: MessageTypeDefinition<_rlfactory_v1_RolloutRequest, _rlfactory_v1_RolloutRequest__Output>
      RolloutService: SubtypeConstructor<typeof grpc.Client, _rlfactory_v1_RolloutServiceClient> & { service: _rlfactory_v1_RolloutServiceDefinition }
      SamplingOverrides: MessageTypeDefinition<_rlfactory_v1_SamplingOverrides, _rlfactory_v1_SamplingOverrides__Output>
      SetPolicyVersionRequest: MessageTypeDefinition<_rlfactory_v1_SetPolicyVersionRequest, _rlfactory_v1_SetPolicyVersionRequest__Output>
      Task: MessageTypeDefinition<_rlfactory_v1_Task, _rlfactory_v1_Task__Output>
      TaskEnvironment: MessageTypeDefinition<_rlfactory_v1_TaskEnvironment, _rlfactory_v1_TaskEnvironment__Output>
      TaskTurn: MessageTypeDefinition<_rlfactory_v1_TaskTurn, _rlfactory_v1_TaskTurn__Output>
      ToolCallRecord: MessageTypeDefinition<_rlfactory_v1_ToolCallRecord, _rlfactory_v1_ToolCallRecord__Output>
      ToolCallUsage: MessageTypeDefinition<_rlfactory_v1_ToolCallUsage, _rlfactory_v1_ToolCallUsage__Output>
      ToolNames: MessageTypeDefinition<_rlfactory_v1_ToolNames, _rlfactory_v1_ToolNames__Output>
      Trajectory: MessageTypeDefinition<_rlfactory_v1_Trajectory, _rlfactory_v1_Trajectory__Output>
      TrajectoryGroup: MessageTypeDefinition<_rlfactory_v1_TrajectoryGroup, _rlfactory_v1_TrajectoryGroup__Output>
      TrajectoryImage: MessageTypeDefinition<_rlfactory_v1_TrajectoryImage, _rlfactory_v1_TrajectoryImage__Output>
      TrajectoryStatus: EnumTypeDefinition
      Turn: MessageTypeDefinition<_rlfactory_v1_Turn, _rlfactory_v1_Turn__Output>
      TurnKind: EnumTypeDefinition
      UserSimulator: MessageTypeDefinition<_rlfactory_v1_UserSimulator, _rlfactory_v1_UserSimulator__Output>
    }
  }
}

