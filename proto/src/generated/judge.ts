import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { JudgeClient as _rlfactory_v1_JudgeClient, JudgeDefinition as _rlfactory_v1_JudgeDefinition } from './rlfactory/v1/Judge.ts';
import type { JudgeFailure as _rlfactory_v1_JudgeFailure, JudgeFailure__Output as _rlfactory_v1_JudgeFailure__Output } from './rlfactory/v1/JudgeFailure.ts';
import type { JudgeMetadata as _rlfactory_v1_JudgeMetadata, JudgeMetadata__Output as _rlfactory_v1_JudgeMetadata__Output } from './rlfactory/v1/JudgeMetadata.ts';
import type { JudgeRequest as _rlfactory_v1_JudgeRequest, JudgeRequest__Output as _rlfactory_v1_JudgeRequest__Output } from './rlfactory/v1/JudgeRequest.ts';
import type { JudgeResponse as _rlfactory_v1_JudgeResponse, JudgeResponse__Output as _rlfactory_v1_JudgeResponse__Output } from './rlfactory/v1/JudgeResponse.ts';
import type { JudgeSampling as _rlfactory_v1_JudgeSampling, JudgeSampling__Output as _rlfactory_v1_JudgeSampling__Output } from './rlfactory/v1/JudgeSampling.ts';
import type { JudgeScore as _rlfactory_v1_JudgeScore, JudgeScore__Output as _rlfactory_v1_JudgeScore__Output } from './rlfactory/v1/JudgeScore.ts';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  rlfactory: {
    v1: {
      Judge: SubtypeConstructor<typeof grpc.Client, _rlfactory_v1_JudgeClient> & { service: _rlfactory_v1_JudgeDefinition }
      JudgeErrorCode: EnumTypeDefinition
      JudgeFailure: MessageTypeDefinition<_rlfactory_v1_JudgeFailure, _rlfactory_v1_JudgeFailure__Output>
      JudgeMetadata: MessageTypeDefinition<_rlfactory_v1_JudgeMetadata, _rlfactory_v1_JudgeMetadata__Output>
      JudgeMode: EnumTypeDefinition
      JudgeRequest: MessageTypeDefinition<_rlfactory_v1_JudgeRequest, _rlfactory_v1_JudgeRequest__Output>
      JudgeResponse: MessageTypeDefinition<_rlfactory_v1_JudgeResponse, _rlfactory_v1_JudgeResponse__Output>
      JudgeSampling: MessageTypeDefinition<_rlfactory_v1_JudgeSampling, _rlfactory_v1_JudgeSampling__Output>
      JudgeScore: MessageTypeDefinition<_rlfactory_v1_JudgeScore, _rlfactory_v1_JudgeScore__Output>
      JudgeWinner: EnumTypeDefinition
    }
  }
}

