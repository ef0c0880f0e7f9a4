// Original file: proto/rlfactory/v1/rollout.proto


/**
 * The inference servers of one request.
 */
export interface InferenceTarget {
  /**
   * Base URLs (`http://host:port`), at least one; load-balanced with session stickiness.
   */
  'urls'?: (string)[];
  /**
   * `vllm` or `sglang`. Empty: the config's engine.
   */
  'engine'?: (string);
  /**
   * Model name to send. Empty: the config's (or the server's first model).
   */
  'model'?: (string);
  /**
   * What these servers' logprobs are: `raw` (temperature 1, vLLM's default) or `processed` (after
   * temperature). Empty: the config's `inference.logprobs_mode`, else the engine's default.
   */
  'logprobs_mode'?: (string);
}

/**
 * The inference servers of one request.
 */
export interface InferenceTarget__Output {
  /**
   * Base URLs (`http://host:port`), at least one; load-balanced with session stickiness.
   */
  'urls': (string)[];
  /**
   * `vllm` or `sglang`. Empty: the config's engine.
   */
  'engine': (string);
  /**
   * Model name to send. Empty: the config's (or the server's first model).
   */
  'model': (string);
  /**
   * What these servers' logprobs are: `raw` (temperature 1, vLLM's default) or `processed` (after
   * temperature). Empty: the config's `inference.logprobs_mode`, else the engine's default.
   */
  'logprobs_mode': (string);
}
