// Original file: proto/rlfactory/v1/gateway.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CallToolsRequest as _rlfactory_v1_CallToolsRequest, CallToolsRequest__Output as _rlfactory_v1_CallToolsRequest__Output } from '../../rlfactory/v1/CallToolsRequest.ts';
import type { CallToolsResponse as _rlfactory_v1_CallToolsResponse, CallToolsResponse__Output as _rlfactory_v1_CallToolsResponse__Output } from '../../rlfactory/v1/CallToolsResponse.ts';
import type { CallToolsStreamRequest as _rlfactory_v1_CallToolsStreamRequest, CallToolsStreamRequest__Output as _rlfactory_v1_CallToolsStreamRequest__Output } from '../../rlfactory/v1/CallToolsStreamRequest.ts';
import type { CallToolsStreamResponse as _rlfactory_v1_CallToolsStreamResponse, CallToolsStreamResponse__Output as _rlfactory_v1_CallToolsStreamResponse__Output } from '../../rlfactory/v1/CallToolsStreamResponse.ts';
import type { EndEpisodeRequest as _rlfactory_v1_EndEpisodeRequest, EndEpisodeRequest__Output as _rlfactory_v1_EndEpisodeRequest__Output } from '../../rlfactory/v1/EndEpisodeRequest.ts';
import type { EndEpisodeResponse as _rlfactory_v1_EndEpisodeResponse, EndEpisodeResponse__Output as _rlfactory_v1_EndEpisodeResponse__Output } from '../../rlfactory/v1/EndEpisodeResponse.ts';
import type { ForkEpisodeRequest as _rlfactory_v1_ForkEpisodeRequest, ForkEpisodeRequest__Output as _rlfactory_v1_ForkEpisodeRequest__Output } from '../../rlfactory/v1/ForkEpisodeRequest.ts';
import type { ForkEpisodeResponse as _rlfactory_v1_ForkEpisodeResponse, ForkEpisodeResponse__Output as _rlfactory_v1_ForkEpisodeResponse__Output } from '../../rlfactory/v1/ForkEpisodeResponse.ts';
import type { ListToolsRequest as _rlfactory_v1_ListToolsRequest, ListToolsRequest__Output as _rlfactory_v1_ListToolsRequest__Output } from '../../rlfactory/v1/ListToolsRequest.ts';
import type { ListToolsResponse as _rlfactory_v1_ListToolsResponse, ListToolsResponse__Output as _rlfactory_v1_ListToolsResponse__Output } from '../../rlfactory/v1/ListToolsResponse.ts';
import type { SnapshotEpisodeRequest as _rlfactory_v1_SnapshotEpisodeRequest, SnapshotEpisodeRequest__Output as _rlfactory_v1_SnapshotEpisodeRequest__Output } from '../../rlfactory/v1/SnapshotEpisodeRequest.ts';
import type { SnapshotEpisodeResponse as _rlfactory_v1_SnapshotEpisodeResponse, SnapshotEpisodeResponse__Output as _rlfactory_v1_SnapshotEpisodeResponse__Output } from '../../rlfactory/v1/SnapshotEpisodeResponse.ts';
import type { StartEpisodeRequest as _rlfactory_v1_StartEpisodeRequest, StartEpisodeRequest__Output as _rlfactory_v1_StartEpisodeRequest__Output } from '../../rlfactory/v1/StartEpisodeRequest.ts';
import type { StartEpisodeResponse as _rlfactory_v1_StartEpisodeResponse, StartEpisodeResponse__Output as _rlfactory_v1_StartEpisodeResponse__Output } from '../../rlfactory/v1/StartEpisodeResponse.ts';
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
   * A batch: every call runs concurrently (calls on the same episode: one after another, in
   * order); results come back in request order, each with its own status.
   */
  CallTools(argument: _rlfactory_v1_CallToolsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  CallTools(argument: _rlfactory_v1_CallToolsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  CallTools(argument: _rlfactory_v1_CallToolsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  CallTools(argument: _rlfactory_v1_CallToolsRequest, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * A batch: every call runs concurrently (calls on the same episode: one after another, in
   * order); results come back in request order, each with its own status.
   */
  callTools(argument: _rlfactory_v1_CallToolsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  callTools(argument: _rlfactory_v1_CallToolsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  callTools(argument: _rlfactory_v1_CallToolsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  callTools(argument: _rlfactory_v1_CallToolsRequest, callback: grpc.requestCallback<_rlfactory_v1_CallToolsResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * CallTools over one long-lived stream: each request message is a batch (or the cancel of one), each
   * response message the answer to one batch, sent as soon as THAT batch is done (batches answer out
   * of order; match them by batch_id). A batch runs exactly as a unary CallTools would (same limits,
   * deadlines, episode order, per-call errors); the stream is authenticated once, from its metadata
   * (a bad key ends it with UNAUTHENTICATED). Every batch gets exactly one answer, unless it was
   * cancelled (a cancelled batch gets none) or the stream died. When the client half-closes, the
   * gateway finishes and answers the batches still running, then ends the stream with OK; so too when
   * the gateway shuts down (batches sent meanwhile: UNAVAILABLE). When the client cancels the stream,
   * every batch still running is aborted as a cancelled CallTools is.
   */
  CallToolsStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_rlfactory_v1_CallToolsStreamRequest, _rlfactory_v1_CallToolsStreamResponse__Output>;
  CallToolsStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_rlfactory_v1_CallToolsStreamRequest, _rlfactory_v1_CallToolsStreamResponse__Output>;
  /**
   * CallTools over one long-lived stream: each request message is a batch (or the cancel of one), each
   * response message the answer to one batch, sent as soon as THAT batch is done (batches answer out
   * of order; match them by batch_id). A batch runs exactly as a unary CallTools would (same limits,
   * deadlines, episode order, per-call errors); the stream is authenticated once, from its metadata
   * (a bad key ends it with UNAUTHENTICATED). Every batch gets exactly one answer, unless it was
   * cancelled (a cancelled batch gets none) or the stream died. When the client half-closes, the
   * gateway finishes and answers the batches still running, then ends the stream with OK; so too when
   * the gateway shuts down (batches sent meanwhile: UNAVAILABLE). When the client cancels the stream,
   * every batch still running is aborted as a cancelled CallTools is.
   */
  callToolsStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_rlfactory_v1_CallToolsStreamRequest, _rlfactory_v1_CallToolsStreamResponse__Output>;
  callToolsStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_rlfactory_v1_CallToolsStreamRequest, _rlfactory_v1_CallToolsStreamResponse__Output>;
  
  /**
   * Ends the episode and returns its final state; the id is then unknown (EPISODE_NOT_FOUND).
   */
  EndEpisode(argument: _rlfactory_v1_EndEpisodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_EndEpisodeResponse__Output>): grpc.ClientUnaryCall;
  EndEpisode(argument: _rlfactory_v1_EndEpisodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_EndEpisodeResponse__Output>): grpc.ClientUnaryCall;
  EndEpisode(argument: _rlfactory_v1_EndEpisodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_EndEpisodeResponse__Output>): grpc.ClientUnaryCall;
  EndEpisode(argument: _rlfactory_v1_EndEpisodeRequest, callback: grpc.requestCallback<_rlfactory_v1_EndEpisodeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Ends the episode and returns its final state; the id is then unknown (EPISODE_NOT_FOUND).
   */
  endEpisode(argument: _rlfactory_v1_EndEpisodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_EndEpisodeResponse__Output>): grpc.ClientUnaryCall;
  endEpisode(argument: _rlfactory_v1_EndEpisodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_EndEpisodeResponse__Output>): grpc.ClientUnaryCall;
  endEpisode(argument: _rlfactory_v1_EndEpisodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_EndEpisodeResponse__Output>): grpc.ClientUnaryCall;
  endEpisode(argument: _rlfactory_v1_EndEpisodeRequest, callback: grpc.requestCallback<_rlfactory_v1_EndEpisodeResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Independent copies of the episode's current state, each with its own id.
   */
  ForkEpisode(argument: _rlfactory_v1_ForkEpisodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_ForkEpisodeResponse__Output>): grpc.ClientUnaryCall;
  ForkEpisode(argument: _rlfactory_v1_ForkEpisodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_ForkEpisodeResponse__Output>): grpc.ClientUnaryCall;
  ForkEpisode(argument: _rlfactory_v1_ForkEpisodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_ForkEpisodeResponse__Output>): grpc.ClientUnaryCall;
  ForkEpisode(argument: _rlfactory_v1_ForkEpisodeRequest, callback: grpc.requestCallback<_rlfactory_v1_ForkEpisodeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Independent copies of the episode's current state, each with its own id.
   */
  forkEpisode(argument: _rlfactory_v1_ForkEpisodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_ForkEpisodeResponse__Output>): grpc.ClientUnaryCall;
  forkEpisode(argument: _rlfactory_v1_ForkEpisodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_ForkEpisodeResponse__Output>): grpc.ClientUnaryCall;
  forkEpisode(argument: _rlfactory_v1_ForkEpisodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_ForkEpisodeResponse__Output>): grpc.ClientUnaryCall;
  forkEpisode(argument: _rlfactory_v1_ForkEpisodeRequest, callback: grpc.requestCallback<_rlfactory_v1_ForkEpisodeResponse__Output>): grpc.ClientUnaryCall;
  
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
  
  /**
   * The episode's current state as JSON; the episode goes on.
   */
  SnapshotEpisode(argument: _rlfactory_v1_SnapshotEpisodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_SnapshotEpisodeResponse__Output>): grpc.ClientUnaryCall;
  SnapshotEpisode(argument: _rlfactory_v1_SnapshotEpisodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_SnapshotEpisodeResponse__Output>): grpc.ClientUnaryCall;
  SnapshotEpisode(argument: _rlfactory_v1_SnapshotEpisodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_SnapshotEpisodeResponse__Output>): grpc.ClientUnaryCall;
  SnapshotEpisode(argument: _rlfactory_v1_SnapshotEpisodeRequest, callback: grpc.requestCallback<_rlfactory_v1_SnapshotEpisodeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The episode's current state as JSON; the episode goes on.
   */
  snapshotEpisode(argument: _rlfactory_v1_SnapshotEpisodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_SnapshotEpisodeResponse__Output>): grpc.ClientUnaryCall;
  snapshotEpisode(argument: _rlfactory_v1_SnapshotEpisodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_SnapshotEpisodeResponse__Output>): grpc.ClientUnaryCall;
  snapshotEpisode(argument: _rlfactory_v1_SnapshotEpisodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_SnapshotEpisodeResponse__Output>): grpc.ClientUnaryCall;
  snapshotEpisode(argument: _rlfactory_v1_SnapshotEpisodeRequest, callback: grpc.requestCallback<_rlfactory_v1_SnapshotEpisodeResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Episodes: state held by an environment server (docs/environments.md) behind an opaque id.
   * Calls carrying ToolCall.episode_id run against that episode's state.
   */
  StartEpisode(argument: _rlfactory_v1_StartEpisodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  StartEpisode(argument: _rlfactory_v1_StartEpisodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  StartEpisode(argument: _rlfactory_v1_StartEpisodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  StartEpisode(argument: _rlfactory_v1_StartEpisodeRequest, callback: grpc.requestCallback<_rlfactory_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Episodes: state held by an environment server (docs/environments.md) behind an opaque id.
   * Calls carrying ToolCall.episode_id run against that episode's state.
   */
  startEpisode(argument: _rlfactory_v1_StartEpisodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  startEpisode(argument: _rlfactory_v1_StartEpisodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_rlfactory_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  startEpisode(argument: _rlfactory_v1_StartEpisodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_rlfactory_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  startEpisode(argument: _rlfactory_v1_StartEpisodeRequest, callback: grpc.requestCallback<_rlfactory_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface ToolGatewayHandlers extends grpc.UntypedServiceImplementation {
  /**
   * One tool call through the policy stack.
   */
  CallTool: grpc.handleUnaryCall<_rlfactory_v1_ToolCall__Output, _rlfactory_v1_ToolResult>;
  
  /**
   * A batch: every call runs concurrently (calls on the same episode: one after another, in
   * order); results come back in request order, each with its own status.
   */
  CallTools: grpc.handleUnaryCall<_rlfactory_v1_CallToolsRequest__Output, _rlfactory_v1_CallToolsResponse>;
  
  /**
   * CallTools over one long-lived stream: each request message is a batch (or the cancel of one), each
   * response message the answer to one batch, sent as soon as THAT batch is done (batches answer out
   * of order; match them by batch_id). A batch runs exactly as a unary CallTools would (same limits,
   * deadlines, episode order, per-call errors); the stream is authenticated once, from its metadata
   * (a bad key ends it with UNAUTHENTICATED). Every batch gets exactly one answer, unless it was
   * cancelled (a cancelled batch gets none) or the stream died. When the client half-closes, the
   * gateway finishes and answers the batches still running, then ends the stream with OK; so too when
   * the gateway shuts down (batches sent meanwhile: UNAVAILABLE). When the client cancels the stream,
   * every batch still running is aborted as a cancelled CallTools is.
   */
  CallToolsStream: grpc.handleBidiStreamingCall<_rlfactory_v1_CallToolsStreamRequest__Output, _rlfactory_v1_CallToolsStreamResponse>;
  
  /**
   * Ends the episode and returns its final state; the id is then unknown (EPISODE_NOT_FOUND).
   */
  EndEpisode: grpc.handleUnaryCall<_rlfactory_v1_EndEpisodeRequest__Output, _rlfactory_v1_EndEpisodeResponse>;
  
  /**
   * Independent copies of the episode's current state, each with its own id.
   */
  ForkEpisode: grpc.handleUnaryCall<_rlfactory_v1_ForkEpisodeRequest__Output, _rlfactory_v1_ForkEpisodeResponse>;
  
  /**
   * The merged catalog of every upstream MCP server, tools named `server__tool`.
   */
  ListTools: grpc.handleUnaryCall<_rlfactory_v1_ListToolsRequest__Output, _rlfactory_v1_ListToolsResponse>;
  
  /**
   * The episode's current state as JSON; the episode goes on.
   */
  SnapshotEpisode: grpc.handleUnaryCall<_rlfactory_v1_SnapshotEpisodeRequest__Output, _rlfactory_v1_SnapshotEpisodeResponse>;
  
  /**
   * Episodes: state held by an environment server (docs/environments.md) behind an opaque id.
   * Calls carrying ToolCall.episode_id run against that episode's state.
   */
  StartEpisode: grpc.handleUnaryCall<_rlfactory_v1_StartEpisodeRequest__Output, _rlfactory_v1_StartEpisodeResponse>;
  
}

export interface ToolGatewayDefinition extends grpc.ServiceDefinition {
  CallTool: MethodDefinition<_rlfactory_v1_ToolCall, _rlfactory_v1_ToolResult, _rlfactory_v1_ToolCall__Output, _rlfactory_v1_ToolResult__Output>
  CallTools: MethodDefinition<_rlfactory_v1_CallToolsRequest, _rlfactory_v1_CallToolsResponse, _rlfactory_v1_CallToolsRequest__Output, _rlfactory_v1_CallToolsResponse__Output>
  CallToolsStream: MethodDefinition<_rlfactory_v1_CallToolsStreamRequest, _rlfactory_v1_CallToolsStreamResponse, _rlfactory_v1_CallToolsStreamRequest__Output, _rlfactory_v1_CallToolsStreamResponse__Output>
  EndEpisode: MethodDefinition<_rlfactory_v1_EndEpisodeRequest, _rlfactory_v1_EndEpisodeResponse, _rlfactory_v1_EndEpisodeRequest__Output, _rlfactory_v1_EndEpisodeResponse__Output>
  ForkEpisode: MethodDefinition<_rlfactory_v1_ForkEpisodeRequest, _rlfactory_v1_ForkEpisodeResponse, _rlfactory_v1_ForkEpisodeRequest__Output, _rlfactory_v1_ForkEpisodeResponse__Output>
  ListTools: MethodDefinition<_rlfactory_v1_ListToolsRequest, _rlfactory_v1_ListToolsResponse, _rlfactory_v1_ListToolsRequest__Output, _rlfactory_v1_ListToolsResponse__Output>
  SnapshotEpisode: MethodDefinition<_rlfactory_v1_SnapshotEpisodeRequest, _rlfactory_v1_SnapshotEpisodeResponse, _rlfactory_v1_SnapshotEpisodeRequest__Output, _rlfactory_v1_SnapshotEpisodeResponse__Output>
  StartEpisode: MethodDefinition<_rlfactory_v1_StartEpisodeRequest, _rlfactory_v1_StartEpisodeResponse, _rlfactory_v1_StartEpisodeRequest__Output, _rlfactory_v1_StartEpisodeResponse__Output>
}
