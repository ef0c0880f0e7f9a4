// @rlfactory/contracts — the records every rlfactory component shares, defined once: the Task a
// rollout runs, the Trajectory it produces (its invariants and the builder that keeps them), the
// reward error and the codes records carry. The rollout engine, environments, factory, train and CLI
// import them from here; proto/schema/*.schema.json (JSON Schema, `npm run gen`) carries them to
// other languages. The export list is explicit.

export {
  type ChatMessage,
  type ChatTool,
  type ChatToolCall,
  chatMessageSchema,
  chatToolCallSchema,
  chatToolSchema,
} from "./chat-message.ts";
export { contractJsonSchemas } from "./json-schema.ts";
export {
  CONFIG_CALL_CODES,
  INFRA_CALL_CODES,
  MALFORMED_CODE_PREFIX,
  NO_ACTION_CODE,
  REWARD_ERROR_CODES,
  type RewardError,
  type RewardErrorCode,
  rewardErrorSchema,
  type ServiceCallCode,
  serviceCallCode,
  TOOL_ERROR_CODE,
} from "./reward-error.ts";
export {
  goldAnswers,
  type Task,
  type TaskEnvironment,
  type TaskTurn,
  type TaskUserSimulator,
  taskEnvironmentSchema,
  taskSchema,
  taskTurnSchema,
  taskUserSimulatorSchema,
  toolAliasesSchema,
} from "./task.ts";
export {
  IMAGE_SHOWN,
  LOGPROBS_KINDS,
  type LogprobsKind,
  policyVersionFromText,
  type ToolCallRecord,
  type ToolCallUsage,
  TRAJECTORY_INVARIANTS,
  TRAJECTORY_SCHEMA_VERSION,
  type Trajectory,
  type TrajectoryImage,
  type TrajectoryStatus,
  type Turn,
  toolCallRecordSchema,
  toolCallUsageSchema,
  trajectoryImageSchema,
  trajectorySchema,
  trajectoryStatusSchema,
  turnSchema,
} from "./trajectory.ts";
export { TrajectoryAlignmentError, TrajectoryBuilder, type TrajectoryInit } from "./trajectory-builder.ts";
export type { GroupStats, TrajectoryGroup, TrajectoryGroupStats } from "./trajectory-group.ts";
