// Original file: proto/rlfactory/v1/gateway.proto


export interface StartEpisodeResponse {
  'episode_id'?: (string);
}

export interface StartEpisodeResponse__Output {
  'episode_id': (string);
}
