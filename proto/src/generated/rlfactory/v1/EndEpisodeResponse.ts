// Original file: proto/rlfactory/v1/gateway.proto


export interface EndEpisodeResponse {
  /**
   * The final state, as JSON.
   */
  'state_json'?: (string);
}

export interface EndEpisodeResponse__Output {
  /**
   * The final state, as JSON.
   */
  'state_json': (string);
}
