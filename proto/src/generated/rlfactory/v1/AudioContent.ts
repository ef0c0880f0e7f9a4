// Original file: proto/rlfactory/v1/gateway.proto


export interface AudioContent {
  'data'?: (Buffer | Uint8Array | string);
  'mime_type'?: (string);
}

export interface AudioContent__Output {
  'data': (Buffer);
  'mime_type': (string);
}
