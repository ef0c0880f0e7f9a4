import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AudioContent as _rlfactory_v1_AudioContent, AudioContent__Output as _rlfactory_v1_AudioContent__Output } from './rlfactory/v1/AudioContent.ts';
import type { CallToolsRequest as _rlfactory_v1_CallToolsRequest, CallToolsRequest__Output as _rlfactory_v1_CallToolsRequest__Output } from './rlfactory/v1/CallToolsRequest.ts';
import type { CallToolsResponse as _rlfactory_v1_CallToolsResponse, CallToolsResponse__Output as _rlfactory_v1_CallToolsResponse__Output } from './rlfactory/v1/CallToolsResponse.ts';
import type { CallToolsStreamRequest as _rlfactory_v1_CallToolsStreamRequest, CallToolsStreamRequest__Output as _rlfactory_v1_CallToolsStreamRequest__Output } from './rlfactory/v1/CallToolsStreamRequest.ts';
import type { CallToolsStreamResponse as _rlfactory_v1_CallToolsStreamResponse, CallToolsStreamResponse__Output as _rlfactory_v1_CallToolsStreamResponse__Output } from './rlfactory/v1/CallToolsStreamResponse.ts';
import type { Content as _rlfactory_v1_Content, Content__Output as _rlfactory_v1_Content__Output } from './rlfactory/v1/Content.ts';
import type { EmbeddedResource as _rlfactory_v1_EmbeddedResource, EmbeddedResource__Output as _rlfactory_v1_EmbeddedResource__Output } from './rlfactory/v1/EmbeddedResource.ts';
import type { EndEpisodeRequest as _rlfactory_v1_EndEpisodeRequest, EndEpisodeRequest__Output as _rlfactory_v1_EndEpisodeRequest__Output } from './rlfactory/v1/EndEpisodeRequest.ts';
import type { EndEpisodeResponse as _rlfactory_v1_EndEpisodeResponse, EndEpisodeResponse__Output as _rlfactory_v1_EndEpisodeResponse__Output } from './rlfactory/v1/EndEpisodeResponse.ts';
import type { ForkEpisodeRequest as _rlfactory_v1_ForkEpisodeRequest, ForkEpisodeRequest__Output as _rlfactory_v1_ForkEpisodeRequest__Output } from './rlfactory/v1/ForkEpisodeRequest.ts';
import type { ForkEpisodeResponse as _rlfactory_v1_ForkEpisodeResponse, ForkEpisodeResponse__Output as _rlfactory_v1_ForkEpisodeResponse__Output } from './rlfactory/v1/ForkEpisodeResponse.ts';
import type { ImageContent as _rlfactory_v1_ImageContent, ImageContent__Output as _rlfactory_v1_ImageContent__Output } from './rlfactory/v1/ImageContent.ts';
import type { ListToolsRequest as _rlfactory_v1_ListToolsRequest, ListToolsRequest__Output as _rlfactory_v1_ListToolsRequest__Output } from './rlfactory/v1/ListToolsRequest.ts';
import type { ListToolsResponse as _rlfactory_v1_ListToolsResponse, ListToolsResponse__Output as _rlfactory_v1_ListToolsResponse__Output } from './rlfactory/v1/ListToolsResponse.ts';
import type { ModelUsage as _rlfactory_v1_ModelUsage, ModelUsage__Output as _rlfactory_v1_ModelUsage__Output } from './rlfactory/v1/ModelUsage.ts';
import type { ResourceLink as _rlfactory_v1_ResourceLink, ResourceLink__Output as _rlfactory_v1_ResourceLink__Output } from './rlfactory/v1/ResourceLink.ts';
import type { SnapshotEpisodeRequest as _rlfactory_v1_SnapshotEpisodeRequest, SnapshotEpisodeRequest__Output as _rlfactory_v1_SnapshotEpisodeRequest__Output } from './rlfactory/v1/SnapshotEpisodeRequest.ts';
import type { SnapshotEpisodeResponse as _rlfactory_v1_SnapshotEpisodeResponse, SnapshotEpisodeResponse__Output as _rlfactory_v1_SnapshotEpisodeResponse__Output } from './rlfactory/v1/SnapshotEpisodeResponse.ts';
import type { StartEpisodeRequest as _rlfactory_v1_StartEpisodeRequest, StartEpisodeRequest__Output as _rlfactory_v1_StartEpisodeRequest__Output } from './rlfactory/v1/StartEpisodeRequest.ts';
import type { StartEpisodeResponse as _rlfactory_v1_StartEpisodeResponse, StartEpisodeResponse__Output as _rlfactory_v1_StartEpisodeResponse__Output } from './rlfactory/v1/StartEpisodeResponse.ts';
import type { TextContent as _rlfactory_v1_TextContent, TextContent__Output as _rlfactory_v1_TextContent__Output } from './rlfactory/v1/TextContent.ts';
import type { Tool as _rlfactory_v1_Tool, Tool__Output as _rlfactory_v1_Tool__Output } from './rlfactory/v1/Tool.ts';
import type { ToolAnnotations as _rlfactory_v1_ToolAnnotations, ToolAnnotations__Output as _rlfactory_v1_ToolAnnotations__Output } from './rlfactory/v1/ToolAnnotations.ts';
import type { ToolCall as _rlfactory_v1_ToolCall, ToolCall__Output as _rlfactory_v1_ToolCall__Output } from './rlfactory/v1/ToolCall.ts';
import type { ToolGatewayClient as _rlfactory_v1_ToolGatewayClient, ToolGatewayDefinition as _rlfactory_v1_ToolGatewayDefinition } from './rlfactory/v1/ToolGateway.ts';
import type { ToolResult as _rlfactory_v1_ToolResult, ToolResult__Output as _rlfactory_v1_ToolResult__Output } from './rlfactory/v1/ToolResult.ts';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  rlfactory: {
    v1: {
      AudioContent: MessageTypeDefinition<_rlfactory_v1_AudioContent, _rlfactory_v1_AudioContent__Output>
      CacheMode: EnumTypeDefinition
      CallToolsRequest: MessageTypeDefinition<_rlfactory_v1_CallToolsRequest, _rlfactory_v1_CallToolsRequest__Output>
      CallToolsResponse: MessageTypeDefinition<_rlfactory_v1_CallToolsResponse, _rlfactory_v1_CallToolsResponse__Output>
      CallToolsStreamRequest: MessageTypeDefinition<_rlfactory_v1_CallToolsStreamRequest, _rlfactory_v1_CallToolsStreamRequest__Output>
      CallToolsStreamResponse: MessageTypeDefinition<_rlfactory_v1_CallToolsStreamResponse, _rlfactory_v1_CallToolsStreamResponse__Output>
      Content: MessageTypeDefinition<_rlfactory_v1_Content, _rlfactory_v1_Content__Output>
      EmbeddedResource: MessageTypeDefinition<_rlfactory_v1_EmbeddedResource, _rlfactory_v1_EmbeddedResource__Output>
      EndEpisodeRequest: MessageTypeDefinition<_rlfactory_v1_EndEpisodeRequest, _rlfactory_v1_EndEpisodeRequest__Output>
      EndEpisodeResponse: MessageTypeDefinition<_rlfactory_v1_EndEpisodeResponse, _rlfactory_v1_EndEpisodeResponse__Output>
      ErrorCode: EnumTypeDefinition
      ForkEpisodeRequest: MessageTypeDefinition<_rlfactory_v1_ForkEpisodeRequest, _rlfactory_v1_ForkEpisodeRequest__Output>
      ForkEpisodeResponse: MessageTypeDefinition<_rlfactory_v1_ForkEpisodeResponse, _rlfactory_v1_ForkEpisodeResponse__Output>
      ImageContent: MessageTypeDefinition<_rlfactory_v1_ImageContent, _rlfactory_v1_ImageContent__Output>
      ListToolsRequest: MessageTypeDefinition<_rlfactory_v1_ListToolsRequest, _rlfactory_v1_ListToolsRequest__Output>
      ListToolsResponse: MessageTypeDefinition<_rlfactory_v1_ListToolsResponse, _rlfactory_v1_ListToolsResponse__Output>
      ModelUsage: MessageTypeDefinition<_rlfactory_v1_ModelUsage, _rlfactory_v1_ModelUsage__Output>
      ResourceLink: MessageTypeDefinition<_rlfactory_v1_ResourceLink, _rlfactory_v1_ResourceLink__Output>
      SnapshotEpisodeRequest: MessageTypeDefinition<_rlfactory_v1_SnapshotEpisodeRequest, _rlfactory_v1_SnapshotEpisodeRequest__Output>
      SnapshotEpisodeResponse: MessageTypeDefinition<_rlfactory_v1_SnapshotEpisodeResponse, _rlfactory_v1_SnapshotEpisodeResponse__Output>
      StartEpisodeRequest: MessageTypeDefinition<_rlfactory_v1_StartEpisodeRequest, _rlfactory_v1_StartEpisodeRequest__Output>
      StartEpisodeResponse: MessageTypeDefinition<_rlfactory_v1_StartEpisodeResponse, _rlfactory_v1_StartEpisodeResponse__Output>
      TextContent: MessageTypeDefinition<_rlfactory_v1_TextContent, _rlfactory_v1_TextContent__Output>
      Tool: MessageTypeDefinition<_rlfactory_v1_Tool, _rlfactory_v1_Tool__Output>
      ToolAnnotations: MessageTypeDefinition<_rlfactory_v1_ToolAnnotations, _rlfactory_v1_ToolAnnotations__Output>
      ToolCall: MessageTypeDefinition<_rlfactory_v1_ToolCall, _rlfactory_v1_ToolCall__Output>
      ToolGateway: SubtypeConstructor<typeof grpc.Client, _rlfactory_v1_ToolGatewayClient> & { service: _rlfactory_v1_ToolGatewayDefinition }
      ToolResult: MessageTypeDefinition<_rlfactory_v1_ToolResult, _rlfactory_v1_ToolResult__Output>
    }
  }
}

