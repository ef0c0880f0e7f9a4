// Original file: proto/rlfactory/v1/rollout.proto


export interface GetPolicyVersionRequest {
}

export interface GetPolicyVersionRequest__Output {
}
