// Original file: proto/rlfactory/v1/gateway.proto


export interface TextContent {
  'text'?: (string);
}

export interface TextContent__Output {
  'text': (string);
}
