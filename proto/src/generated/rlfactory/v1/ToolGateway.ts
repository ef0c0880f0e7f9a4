// Original file: proto/rlfactory/v1/gateway.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CallToolsRequest as _rlfactory_v1_CallToolsRequest, CallToolsRequest__Output as _rlfactory_v1_CallToolsRequest__Output } from '../../rlfactory/v1/CallToolsRequest.ts';
import type { CallToolsResponse as _rlfactory_v1_CallToolsResponse, CallToolsResponse__Output as _rlfactory_v1_CallToolsResponse__Output } from '../../rlfactory/v1/CallToolsResponse.ts';
import type { ListToolsRequest as _rlfactory_v1_ListToolsRequest, ListToolsRequest__Output as _rlfactory_v1_ListToolsRequest__Output } from '../../rlfactory/v1/ListToolsRequest.ts';
import type { ListToolsResponse as _rlfactory_v1_ListToolsResponse, ListToolsResponse__Output as _rlfactory_v1_ListToolsResponse__Output } from '../../rlfactory/v1/ListToolsResponse.ts';
import type { ToolCall as _rlfactory_v1_ToolCall, ToolCall__Output as _rlfactory_v1_ToolCall__Output } from '../../rlfactory/v1/ToolCall.ts';
import type { ToolResult as _rlfactory_v1_ToolResult, ToolResult__Output as _rlfactory_v1_ToolResult__Output } from '../../rlfactory/v1/ToolResult.ts';

export interface ToolGatewayClient extends grpc.Client {
  /**
   * One tool call through the policy stack.
   */
  CallTool(argument: _rlfactory_v1_ToolCall, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_ToolResult__Output>): grpc.ClientUnaryCall;
  CallTool(argument: _rlfactory_v1_ToolCall, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_ToolResult__Output>): grpc.ClientUnaryCall;
  CallTool(argument: _rlfactory_v1_ToolCall, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_ToolResult__Output>): grpc.ClientUnaryCall;
  CallTool(argument: _rlfactory_v1_ToolCall, callback: grpc.requestCallback<_rlfactory_v1_ToolResult__Output>): grpc.ClientUnaryCall;
  /**
   * One tool call through the policy stack.
   */
  callTool(argument: _rlfactory_v1_ToolCall, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_ToolResult__Output>): grpc.ClientUnaryCall;
  callTool(argument: _rlfactory_v1_ToolCall, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_ToolResult__Output>): grpc.ClientUnaryCall;
  callTool(argument: _rlfactory_v1_ToolCall, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_ToolResult__Output>): grpc.ClientUnaryCall;
  callTool(argument: _rlfactory_v1_ToolCall, callback: grpc.requestCallback<_rlfactory_v1_ToolResult__Output>): grpc.ClientUnaryCall;
  
  /**
   * A batch: every call runs concurrently; results come back in request order, each with its own
   * status.
   */
  CallTools(argument: _rlfactory_v1_CallToolsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  CallTools(argument: _rlfactory_v1_CallToolsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  CallTools(argument: _rlfactory_v1_CallToolsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  CallTools(argument: _rlfactory_v1_CallToolsRequest, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * A batch: every call runs concurrently; results come back in request order, each with its own
   * status.
   */
  callTools(argument: _rlfactory_v1_CallToolsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  callTools(argument: _rlfactory_v1_CallToolsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  callTools(argument: _rlfactory_v1_CallToolsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  callTools(argument: _rlfactory_v1_CallToolsRequest, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The merged catalog of every upstream MCP server, tools named `server__tool`.
   */
  ListTools(argument: _rlfactory_v1_ListToolsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  ListTools(argument: _rlfactory_v1_ListToolsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  ListTools(argument: _rlfactory_v1_ListToolsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  ListTools(argument: _rlfactory_v1_ListToolsRequest, callback: grpc.requestCallback<_rlfactory_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The merged catalog of every upstream MCP server, tools named `server__tool`.
   */
  listTools(argument: _rlfactory_v1_ListToolsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  listTools(argument: _rlfactory_v1_ListToolsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  listTools(argument: _rlfactory_v1_ListToolsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  listTools(argument: _rlfactory_v1_ListToolsRequest, callback: grpc.requestCallback<_rlfactory_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface ToolGatewayHandlers extends grpc.UntypedServiceImplementation {
  /**
   * One tool call through the policy stack.
   */
  CallTool: grpc.handleUnaryCall<_rlfactory_v1_ToolCall__Output, _rlfactory_v1_ToolResult>;
  
  /**
   * A batch: every call runs concurrently; results come back in request order, each with its own
   * status.
   */
  CallTools: grpc.handleUnaryCall<_rlfactory_v1_CallToolsRequest__Output, _rlfactory_v1_CallToolsResponse>;
  
  /**
   * The merged catalog of every upstream MCP server, tools named `server__tool`.
   */
  ListTools: grpc.handleUnaryCall<_rlfactory_v1_ListToolsRequest__Output, _rlfactory_v1_ListToolsResponse>;
  
}

export interface ToolGatewayDefinition extends grpc.ServiceDefinition {
  CallTool: MethodDefinition<_rlfactory_v1_ToolCall, _rlfactory_v1_ToolResult, _rlfactory_v1_ToolCall__Output, _rlfactory_v1_ToolResult__Output>
  CallTools: MethodDefinition<_rlfactory_v1_CallToolsRequest, _rlfactory_v1_CallToolsResponse, _rlfactory_v1_CallToolsRequest__Output, _rlfactory_v1_CallToolsResponse__Output>
  ListTools: MethodDefinition<_rlfactory_v1_ListToolsRequest, _rlfactory_v1_ListToolsResponse, _rlfactory_v1_ListToolsRequest__Output, _rlfactory_v1_ListToolsResponse__Output>
}
