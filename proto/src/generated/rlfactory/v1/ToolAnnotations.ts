// Original file: proto/rlfactory/v1/gateway.proto


export interface ToolAnnotations {
  'read_only_hint'?: (boolean);
  'destructive_hint'?: (boolean);
  'idempotent_hint'?: (boolean);
  'open_world_hint'?: (boolean);
  '_read_only_hint'?: "read_only_hint";
  '_destructive_hint'?: "destructive_hint";
  '_idempotent_hint'?: "idempotent_hint";
  '_open_world_hint'?: "open_world_hint";
}

export interface ToolAnnotations__Output {
  'read_only_hint'?: (boolean);
  'destructive_hint'?: (boolean);
  'idempotent_hint'?: (boolean);
  'open_world_hint'?: (boolean);
  '_read_only_hint'?: "read_only_hint";
  '_destructive_hint'?: "destructive_hint";
  '_idempotent_hint'?: "idempotent_hint";
  '_open_world_hint'?: "open_world_hint";
}
