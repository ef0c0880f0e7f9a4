// Original file: proto/rlfactory/v1/gateway.proto


export interface ForkEpisodeResponse {
  'episode_ids'?: (string)[];
}

export interface ForkEpisodeResponse__Output {
  'episode_ids': (string)[];
}
