// Original file: proto/rlfactory/v1/gateway.proto


export interface ResourceLink {
  'uri'?: (string);
  'name'?: (string);
  'description'?: (string);
  'mime_type'?: (string);
}

export interface ResourceLink__Output {
  'uri': (string);
  'name': (string);
  'description': (string);
  'mime_type': (string);
}
