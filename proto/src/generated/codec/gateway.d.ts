import * as $protobuf from "protobufjs";
import Long = require("long");
export namespace rlfactory {

    namespace v1 {

        interface IStartEpisodeRequest {
            server?: (string|null);
            config_json?: (string|null);
            ttl_ms?: (number|null);
        }

        class StartEpisodeRequest implements IStartEpisodeRequest {
            constructor(properties?: rlfactory.v1.IStartEpisodeRequest);
            public server: string;
            public config_json: string;
            public ttl_ms: number;
            public static encode(message: rlfactory.v1.IStartEpisodeRequest, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.StartEpisodeRequest;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.StartEpisodeRequest;
            public static toObject(message: rlfactory.v1.StartEpisodeRequest, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IStartEpisodeResponse {
            episode_id?: (string|null);
        }

        class StartEpisodeResponse implements IStartEpisodeResponse {
            constructor(properties?: rlfactory.v1.IStartEpisodeResponse);
            public episode_id: string;
            public static encode(message: rlfactory.v1.IStartEpisodeResponse, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.StartEpisodeResponse;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.StartEpisodeResponse;
            public static toObject(message: rlfactory.v1.StartEpisodeResponse, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IForkEpisodeRequest {
            episode_id?: (string|null);
            count?: (number|null);
        }

        class ForkEpisodeRequest implements IForkEpisodeRequest {
            constructor(properties?: rlfactory.v1.IForkEpisodeRequest);
            public episode_id: string;
            public count: number;
            public static encode(message: rlfactory.v1.IForkEpisodeRequest, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.ForkEpisodeRequest;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.ForkEpisodeRequest;
            public static toObject(message: rlfactory.v1.ForkEpisodeRequest, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IForkEpisodeResponse {
            episode_ids?: (string[]|null);
        }

        class ForkEpisodeResponse implements IForkEpisodeResponse {
            constructor(properties?: rlfactory.v1.IForkEpisodeResponse);
            public episode_ids: string[];
            public static encode(message: rlfactory.v1.IForkEpisodeResponse, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.ForkEpisodeResponse;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.ForkEpisodeResponse;
            public static toObject(message: rlfactory.v1.ForkEpisodeResponse, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface ISnapshotEpisodeRequest {
            episode_id?: (string|null);
        }

        class SnapshotEpisodeRequest implements ISnapshotEpisodeRequest {
            constructor(properties?: rlfactory.v1.ISnapshotEpisodeRequest);
            public episode_id: string;
            public static encode(message: rlfactory.v1.ISnapshotEpisodeRequest, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.SnapshotEpisodeRequest;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.SnapshotEpisodeRequest;
            public static toObject(message: rlfactory.v1.SnapshotEpisodeRequest, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface ISnapshotEpisodeResponse {
            state_json?: (string|null);
        }

        class SnapshotEpisodeResponse implements ISnapshotEpisodeResponse {
            constructor(properties?: rlfactory.v1.ISnapshotEpisodeResponse);
            public state_json: string;
            public static encode(message: rlfactory.v1.ISnapshotEpisodeResponse, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.SnapshotEpisodeResponse;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.SnapshotEpisodeResponse;
            public static toObject(message: rlfactory.v1.SnapshotEpisodeResponse, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IEndEpisodeRequest {
            episode_id?: (string|null);
        }

        class EndEpisodeRequest implements IEndEpisodeRequest {
            constructor(properties?: rlfactory.v1.IEndEpisodeRequest);
            public episode_id: string;
            public static encode(message: rlfactory.v1.IEndEpisodeRequest, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.EndEpisodeRequest;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.EndEpisodeRequest;
            public static toObject(message: rlfactory.v1.EndEpisodeRequest, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IEndEpisodeResponse {
            state_json?: (string|null);
        }

        class EndEpisodeResponse implements IEndEpisodeResponse {
            constructor(properties?: rlfactory.v1.IEndEpisodeResponse);
            public state_json: string;
            public static encode(message: rlfactory.v1.IEndEpisodeResponse, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.EndEpisodeResponse;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.EndEpisodeResponse;
            public static toObject(message: rlfactory.v1.EndEpisodeResponse, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IListToolsRequest {
            server?: (string|null);
        }

        class ListToolsRequest implements IListToolsRequest {
            constructor(properties?: rlfactory.v1.IListToolsRequest);
            public server: string;
            public static encode(message: rlfactory.v1.IListToolsRequest, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.ListToolsRequest;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.ListToolsRequest;
            public static toObject(message: rlfactory.v1.ListToolsRequest, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IListToolsResponse {
            tools?: (rlfactory.v1.ITool[]|null);
        }

        class ListToolsResponse implements IListToolsResponse {
            constructor(properties?: rlfactory.v1.IListToolsResponse);
            public tools: rlfactory.v1.ITool[];
            public static encode(message: rlfactory.v1.IListToolsResponse, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.ListToolsResponse;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.ListToolsResponse;
            public static toObject(message: rlfactory.v1.ListToolsResponse, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface ITool {
            name?: (string|null);
            server?: (string|null);
            upstream_name?: (string|null);
            title?: (string|null);
            description?: (string|null);
            input_schema_json?: (string|null);
            output_schema_json?: (string|null);
            annotations?: (rlfactory.v1.IToolAnnotations|null);
            cacheable?: (boolean|null);
            idempotent?: (boolean|null);
            schema_version?: (string|null);
        }

        class Tool implements ITool {
            constructor(properties?: rlfactory.v1.ITool);
            public name: string;
            public server: string;
            public upstream_name: string;
            public title: string;
            public description: string;
            public input_schema_json: string;
            public output_schema_json: string;
            public annotations?: (rlfactory.v1.IToolAnnotations|null);
            public cacheable: boolean;
            public idempotent: boolean;
            public schema_version: string;
            public static encode(message: rlfactory.v1.ITool, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.Tool;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.Tool;
            public static toObject(message: rlfactory.v1.Tool, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IToolAnnotations {
            read_only_hint?: (boolean|null);
            destructive_hint?: (boolean|null);
            idempotent_hint?: (boolean|null);
            open_world_hint?: (boolean|null);
        }

        class ToolAnnotations implements IToolAnnotations {
            constructor(properties?: rlfactory.v1.IToolAnnotations);
            public read_only_hint?: (boolean|null);
            public destructive_hint?: (boolean|null);
            public idempotent_hint?: (boolean|null);
            public open_world_hint?: (boolean|null);
            public static encode(message: rlfactory.v1.IToolAnnotations, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.ToolAnnotations;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.ToolAnnotations;
            public static toObject(message: rlfactory.v1.ToolAnnotations, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        enum CacheMode {
            CACHE_DEFAULT = 0,
            CACHE_BYPASS = 1
        }

        interface IToolCall {
            name?: (string|null);
            arguments_json?: (string|null);
            deadline_ms?: (number|null);
            trajectory_id?: (string|null);
            cache?: (rlfactory.v1.CacheMode|null);
            call_id?: (string|null);
            episode_id?: (string|null);
        }

        class ToolCall implements IToolCall {
            constructor(properties?: rlfactory.v1.IToolCall);
            public name: string;
            public arguments_json: string;
            public deadline_ms: number;
            public trajectory_id: string;
            public cache: rlfactory.v1.CacheMode;
            public call_id: string;
            public episode_id: string;
            public static encode(message: rlfactory.v1.IToolCall, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.ToolCall;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.ToolCall;
            public static toObject(message: rlfactory.v1.ToolCall, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface ICallToolsRequest {
            calls?: (rlfactory.v1.IToolCall[]|null);
            deadline_ms?: (number|null);
            trajectory_id?: (string|null);
        }

        class CallToolsRequest implements ICallToolsRequest {
            constructor(properties?: rlfactory.v1.ICallToolsRequest);
            public calls: rlfactory.v1.IToolCall[];
            public deadline_ms: number;
            public trajectory_id: string;
            public static encode(message: rlfactory.v1.ICallToolsRequest, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.CallToolsRequest;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.CallToolsRequest;
            public static toObject(message: rlfactory.v1.CallToolsRequest, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface ICallToolsResponse {
            results?: (rlfactory.v1.IToolResult[]|null);
        }

        class CallToolsResponse implements ICallToolsResponse {
            constructor(properties?: rlfactory.v1.ICallToolsResponse);
            public results: rlfactory.v1.IToolResult[];
            public static encode(message: rlfactory.v1.ICallToolsResponse, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.CallToolsResponse;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.CallToolsResponse;
            public static toObject(message: rlfactory.v1.CallToolsResponse, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface ICallToolsStreamRequest {
            batch_id?: (number|Long|null);
            batch?: (rlfactory.v1.ICallToolsRequest|null);
            cancel?: (boolean|null);
            traceparent?: (string|null);
            tracestate?: (string|null);
        }

        class CallToolsStreamRequest implements ICallToolsStreamRequest {
            constructor(properties?: rlfactory.v1.ICallToolsStreamRequest);
            public batch_id: (number|Long);
            public batch?: (rlfactory.v1.ICallToolsRequest|null);
            public cancel?: (boolean|null);
            public traceparent: string;
            public tracestate: string;
            public kind?: ("batch"|"cancel");
            public static encode(message: rlfactory.v1.ICallToolsStreamRequest, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.CallToolsStreamRequest;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.CallToolsStreamRequest;
            public static toObject(message: rlfactory.v1.CallToolsStreamRequest, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface ICallToolsStreamResponse {
            batch_id?: (number|Long|null);
            results?: (rlfactory.v1.IToolResult[]|null);
            status_code?: (number|null);
            status_details?: (string|null);
        }

        class CallToolsStreamResponse implements ICallToolsStreamResponse {
            constructor(properties?: rlfactory.v1.ICallToolsStreamResponse);
            public batch_id: (number|Long);
            public results: rlfactory.v1.IToolResult[];
            public status_code: number;
            public status_details: string;
            public static encode(message: rlfactory.v1.ICallToolsStreamResponse, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.CallToolsStreamResponse;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.CallToolsStreamResponse;
            public static toObject(message: rlfactory.v1.CallToolsStreamResponse, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        enum ErrorCode {
            OK = 0,
            TIMEOUT = 1,
            UNAVAILABLE = 2,
            CIRCUIT_OPEN = 3,
            UNKNOWN_TOOL = 4,
            INVALID_ARGUMENTS = 5,
            RATE_LIMITED = 6,
            OUTPUT_TOO_LARGE = 7,
            INTERNAL = 8,
            CANCELLED = 9,
            UPSTREAM_ERROR = 10,
            ARGUMENTS_TOO_LARGE = 11,
            EPISODE_NOT_FOUND = 12,
            EPISODE_LOST = 13,
            UNSUPPORTED = 14,
            BUDGET_EXCEEDED = 15
        }

        interface IToolResult {
            name?: (string|null);
            call_id?: (string|null);
            content?: (rlfactory.v1.IContent[]|null);
            structured_content_json?: (string|null);
            is_error?: (boolean|null);
            error_code?: (rlfactory.v1.ErrorCode|null);
            error_message?: (string|null);
            latency_ms?: (number|null);
            cache_hit?: (boolean|null);
            attempts?: (number|null);
            truncated?: (boolean|null);
            usage?: (rlfactory.v1.IModelUsage|null);
        }

        class ToolResult implements IToolResult {
            constructor(properties?: rlfactory.v1.IToolResult);
            public name: string;
            public call_id: string;
            public content: rlfactory.v1.IContent[];
            public structured_content_json: string;
            public is_error: boolean;
            public error_code: rlfactory.v1.ErrorCode;
            public error_message: string;
            public latency_ms: number;
            public cache_hit: boolean;
            public attempts: number;
            public truncated: boolean;
            public usage?: (rlfactory.v1.IModelUsage|null);
            public static encode(message: rlfactory.v1.IToolResult, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.ToolResult;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.ToolResult;
            public static toObject(message: rlfactory.v1.ToolResult, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IModelUsage {
            prompt_tokens?: (number|null);
            completion_tokens?: (number|null);
            cost_usd?: (number|null);
            model?: (string|null);
        }

        class ModelUsage implements IModelUsage {
            constructor(properties?: rlfactory.v1.IModelUsage);
            public prompt_tokens: number;
            public completion_tokens: number;
            public cost_usd?: (number|null);
            public model: string;
            public static encode(message: rlfactory.v1.IModelUsage, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.ModelUsage;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.ModelUsage;
            public static toObject(message: rlfactory.v1.ModelUsage, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IContent {
            text?: (rlfactory.v1.ITextContent|null);
            image?: (rlfactory.v1.IImageContent|null);
            audio?: (rlfactory.v1.IAudioContent|null);
            resource?: (rlfactory.v1.IEmbeddedResource|null);
            resource_link?: (rlfactory.v1.IResourceLink|null);
        }

        class Content implements IContent {
            constructor(properties?: rlfactory.v1.IContent);
            public text?: (rlfactory.v1.ITextContent|null);
            public image?: (rlfactory.v1.IImageContent|null);
            public audio?: (rlfactory.v1.IAudioContent|null);
            public resource?: (rlfactory.v1.IEmbeddedResource|null);
            public resource_link?: (rlfactory.v1.IResourceLink|null);
            public kind?: ("text"|"image"|"audio"|"resource"|"resource_link");
            public static encode(message: rlfactory.v1.IContent, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.Content;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.Content;
            public static toObject(message: rlfactory.v1.Content, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface ITextContent {
            text?: (string|null);
        }

        class TextContent implements ITextContent {
            constructor(properties?: rlfactory.v1.ITextContent);
            public text: string;
            public static encode(message: rlfactory.v1.ITextContent, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.TextContent;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.TextContent;
            public static toObject(message: rlfactory.v1.TextContent, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IImageContent {
            data?: (Uint8Array|null);
            mime_type?: (string|null);
        }

        class ImageContent implements IImageContent {
            constructor(properties?: rlfactory.v1.IImageContent);
            public data: Uint8Array;
            public mime_type: string;
            public static encode(message: rlfactory.v1.IImageContent, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.ImageContent;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.ImageContent;
            public static toObject(message: rlfactory.v1.ImageContent, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IAudioContent {
            data?: (Uint8Array|null);
            mime_type?: (string|null);
        }

        class AudioContent implements IAudioContent {
            constructor(properties?: rlfactory.v1.IAudioContent);
            public data: Uint8Array;
            public mime_type: string;
            public static encode(message: rlfactory.v1.IAudioContent, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.AudioContent;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.AudioContent;
            public static toObject(message: rlfactory.v1.AudioContent, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IEmbeddedResource {
            uri?: (string|null);
            mime_type?: (string|null);
            text?: (string|null);
            blob?: (Uint8Array|null);
        }

        class EmbeddedResource implements IEmbeddedResource {
            constructor(properties?: rlfactory.v1.IEmbeddedResource);
            public uri: string;
            public mime_type: string;
            public text: string;
            public blob: Uint8Array;
            public static encode(message: rlfactory.v1.IEmbeddedResource, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.EmbeddedResource;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.EmbeddedResource;
            public static toObject(message: rlfactory.v1.EmbeddedResource, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }

        interface IResourceLink {
            uri?: (string|null);
            name?: (string|null);
            description?: (string|null);
            mime_type?: (string|null);
        }

        class ResourceLink implements IResourceLink {
            constructor(properties?: rlfactory.v1.IResourceLink);
            public uri: string;
            public name: string;
            public description: string;
            public mime_type: string;
            public static encode(message: rlfactory.v1.IResourceLink, writer?: $protobuf.Writer): $protobuf.Writer;
            public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): rlfactory.v1.ResourceLink;
            public static fromObject(object: { [k: string]: any }): rlfactory.v1.ResourceLink;
            public static toObject(message: rlfactory.v1.ResourceLink, options?: $protobuf.IConversionOptions): { [k: string]: any };
            public toJSON(): { [k: string]: any };
        }
    }
}
