// Original file: proto/rlfactory/v1/gateway.proto


export interface SnapshotEpisodeRequest {
  'episode_id'?: (string);
}

export interface SnapshotEpisodeRequest__Output {
  'episode_id': (string);
}
