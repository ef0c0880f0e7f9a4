// Original file: proto/rlfactory/v1/gateway.proto


export interface EndEpisodeRequest {
  'episode_id'?: (string);
}

export interface EndEpisodeRequest__Output {
  'episode_id': (string);
}
