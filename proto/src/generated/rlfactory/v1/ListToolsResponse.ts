// Original file: proto/rlfactory/v1/gateway.proto

import type { Tool as _rlfactory_v1_Tool, Tool__Output as _rlfactory_v1_Tool__Output } from '../../rlfactory/v1/Tool.ts';

export interface ListToolsResponse {
  'tools'?: (_rlfactory_v1_Tool)[];
}

export interface ListToolsResponse__Output {
  'tools': (_rlfactory_v1_Tool__Output)[];
}
