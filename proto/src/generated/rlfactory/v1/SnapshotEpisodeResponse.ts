// Original file: proto/rlfactory/v1/gateway.proto


export interface SnapshotEpisodeResponse {
  'state_json'?: (string);
}

export interface SnapshotEpisodeResponse__Output {
  'state_json': (string);
}
