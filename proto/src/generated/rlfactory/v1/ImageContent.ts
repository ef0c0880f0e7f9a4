// Original file: proto/rlfactory/v1/gateway.proto


export interface ImageContent {
  'data'?: (Buffer | Uint8Array | string);
  'mime_type'?: (string);
}

export interface ImageContent__Output {
  'data': (Buffer);
  'mime_type': (string);
}
