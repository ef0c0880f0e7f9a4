// What every trajectory of an engine shares: the sampler, the tokenizer and format, the tools and the
// limits (rollout config), the optional user simulator and episode RPCs.
import type { ChatTool } from "@rlfactory/contracts";
import type { ToolCaller } from "../gateway-tools.ts";
import type { SamplingParams, TokenSampler } from "../inference/types.ts";
import type { ToolCallFormat } from "../parsers/types.ts";
import type { ModelTokenizer } from "../tokenizer/model-tokenizer.ts";
import type { ObservationDeltaFn } from "../tokenizer/observation-delta.ts";
import type { PiecewiseEncoder } from "../tokenizer/piecewise-encoder.ts";
import type { VisionSettings } from "../vision/vision-config.ts";
import type { EpisodeApi } from "./episodes.ts";
import type { UserSimulator } from "./user-simulator.ts";

export interface LoopLimits {
  maxTurns: number;
  maxContextTokens: number;
  maxToolResponseTokens: number;
  toolDeadlineMs: number;
  onNoAction: "end" | "nudge";
}

/** Everything one trajectory needs; shared by all trajectories of an engine. */
export interface LoopDeps {
  sampler: TokenSampler;
  tokenizer: ModelTokenizer;
  format: ToolCallFormat;
  /** Tools rendered into the prompt by the chat template (chat-template formats). */
  tools: readonly ChatTool[];
  enableThinking?: boolean;
  observationDelta: ObservationDeltaFn;
  /**
   * Encodes first prompts (renderPromptIds) with the ids of repeated pieces kept; the engine's is a
   * PiecewiseEncoder over `tokenizer`. Default: `tokenizer.encode`.
   */
  promptEncoder?: Pick<PiecewiseEncoder, "encode">;
  toolCaller: ToolCaller;
  limits: LoopLimits;
  sampling: SamplingParams;
  /** Writes the later user messages of tasks with `user_simulator` (rollout config `user_simulator`). */
  userSimulator?: UserSimulator;
  /** The gateway's whole catalog, where `tool_aliases` targets are looked up (default: `tools`). */
  catalog?: readonly ChatTool[];
  /** The gateway's episode RPCs, for tasks with an `environment`. */
  episodes?: EpisodeApi;
  /**
   * The `vision` settings when the chat template is vision-language (it renders `<|vision_start|>`):
   * tool-result images then enter the context as placeholder tokens and go to the server. Absent: each
   * image is a one-line text note.
   */
  vision?: VisionSettings;
  /** Each stored snapshot's size bound (`rollout.max_snapshot_bytes`); default 262144. */
  maxSnapshotBytes?: number;
}

export const DEFAULT_MAX_SNAPSHOT_BYTES = 262_144;
