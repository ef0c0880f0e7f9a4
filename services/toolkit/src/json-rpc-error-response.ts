/** An HTTP response carrying a JSON-RPC error object with a null id (the transport-level refusals). */
export function jsonRpcErrorResponse(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
