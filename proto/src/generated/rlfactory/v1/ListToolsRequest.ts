// Original file: proto/rlfactory/v1/gateway.proto


export interface ListToolsRequest {
  /**
   * Only tools of this upstream server (empty: all servers).
   */
  'server'?: (string);
}

export interface ListToolsRequest__Output {
  /**
   * Only tools of this upstream server (empty: all servers).
   */
  'server': (string);
}
