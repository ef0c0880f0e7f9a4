// Declaring a tool: its name, schemas, hints and handler, checked once at definition time.
import type { z } from "zod";
import type { RawToolResult } from "./raw-result.ts";

export interface ToolContext {
  /** Aborts when the client cancels the call (notifications/cancelled, or its request stream closing). */
  signal: AbortSignal;
  /** The request's `params._meta`, as sent by the client. */
  meta?: Record<string, unknown>;
  /** The MCP session the call came in on (2025-era HTTP sessions); absent over stdio and stateless HTTP. */
  sessionId?: string;
}

/** MCP tool annotations: hints for clients and gateways (caching, retries), never enforced. */
export interface ToolHints {
  readOnlyHint?: boolean;
  idempotentHint?: boolean;
  destructiveHint?: boolean;
  openWorldHint?: boolean;
}

type AnyObject = z.ZodObject;

/**
 * What a handler may return: the structured output (validated against `output`), or raw content
 * blocks via `rawResult(...)`. Without an `output` schema a plain string becomes a single text
 * block, and a plain object is sent as unvalidated structured content.
 */
export type ToolReturn<O extends AnyObject | undefined> =
  | RawToolResult
  | (O extends AnyObject ? z.input<O> : string | Record<string, unknown>);

export type ToolRenderInput<O extends AnyObject | undefined> = O extends AnyObject
  ? z.output<O>
  : Record<string, unknown>;

export interface ToolSpec<I extends AnyObject, O extends AnyObject | undefined> {
  /** 1-128 characters of A-Z a-z 0-9 _ - . (the MCP tool-name rule). */
  name: string;
  title?: string;
  description: string;
  input: I;
  /**
   * The input's JSON Schema as listed, in place of `input`'s own conversion: for tools whose schema
   * comes from elsewhere (another language) and whose arguments are checked there. `input` still
   * validates what it declares (use a loose object).
   */
  inputJsonSchema?: Record<string, unknown>;
  output?: O;
  annotations?: ToolHints;
  handler: (args: z.output<I>, ctx: ToolContext) => Promise<ToolReturn<O>>;
  /** Text rendering of the structured output; JSON when absent. */
  render?: (output: ToolRenderInput<O>) => string;
  /**
   * Why the tool cannot run here, with how to fix it (e.g. a missing system package). The tool is still
   * listed, marked so in `_meta` (the gateway answers its calls UNAVAILABLE without forwarding them), and
   * a call reaching the server gets a JSON-RPC error with this text; the handler never runs.
   */
  unavailable?: string;
}

/** A tool with its types erased, as the server stores it. */
export interface ToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly input: AnyObject;
  readonly inputJsonSchema?: Record<string, unknown>;
  readonly output?: AnyObject;
  readonly annotations?: ToolHints;
  readonly handler: (args: unknown, ctx: ToolContext) => Promise<unknown>;
  readonly render?: (output: unknown) => string;
  readonly unavailable?: string;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function defineTool<I extends AnyObject, O extends AnyObject | undefined = undefined>(
  spec: ToolSpec<I, O>,
): ToolDefinition {
  if (!TOOL_NAME.test(spec.name)) {
    throw new Error(
      `invalid tool name ${JSON.stringify(spec.name)}: use 1-128 characters of A-Z a-z 0-9 _ - .`,
    );
  }
  return spec as unknown as ToolDefinition;
}
