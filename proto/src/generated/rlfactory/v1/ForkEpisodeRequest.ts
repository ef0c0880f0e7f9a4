// Original file: proto/rlfactory/v1/gateway.proto


export interface ForkEpisodeRequest {
  'episode_id'?: (string);
  /**
   * How many copies (1 or more).
   */
  'count'?: (number);
}

export interface ForkEpisodeRequest__Output {
  'episode_id': (string);
  /**
   * How many copies (1 or more).
   */
  'count': (number);
}
