/**
 * An error a tool handler throws to report a failure to the model: the client receives a result
 * with `isError: true` whose text is exactly `message`. Keep it short and actionable; it is shown
 * to the model, never a stack trace. Any other thrown error is reported generically.
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
}
