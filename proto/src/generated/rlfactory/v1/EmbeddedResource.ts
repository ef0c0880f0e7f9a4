// Original file: proto/rlfactory/v1/gateway.proto


export interface EmbeddedResource {
  'uri'?: (string);
  'mime_type'?: (string);
  'text'?: (string);
  'blob'?: (Buffer | Uint8Array | string);
}

export interface EmbeddedResource__Output {
  'uri': (string);
  'mime_type': (string);
  'text': (string);
  'blob': (Buffer);
}
