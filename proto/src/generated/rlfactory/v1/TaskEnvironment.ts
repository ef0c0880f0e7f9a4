// Original file: proto/rlfactory/v1/rollout.proto


/**
 * The stateful environment a task runs in (docs/environments.md).
 */
export interface TaskEnvironment {
  /**
   * The gateway server name of the environment server.
   */
  'server'?: (string);
  /**
   * The episode config (StartEpisode's config), as a JSON object in text. Empty: `{}`.
   */
  'config_json'?: (string);
}

/**
 * The stateful environment a task runs in (docs/environments.md).
 */
export interface TaskEnvironment__Output {
  /**
   * The gateway server name of the environment server.
   */
  'server': (string);
  /**
   * The episode config (StartEpisode's config), as a JSON object in text. Empty: `{}`.
   */
  'config_json': (string);
}
