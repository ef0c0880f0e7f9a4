// The judge's default loopback ports (a user-facing contract: `rlf judge`, `rlf stack`, deploy/).
export const JUDGE_HTTP_PORT = 7005;
export const JUDGE_GRPC_PORT = 50053;
