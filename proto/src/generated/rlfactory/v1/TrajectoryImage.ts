// Original file: proto/rlfactory/v1/rollout.proto


/**
 * One tool-result image of a trajectory (docs/images.md): its bytes are at `path` under the run
 * directory; a shown image's `<|image_pad|>` tokens are response_ids[start, end).
 */
export interface TrajectoryImage {
  /**
   * SHA-256 of the stored bytes, hex.
   */
  'sha256'?: (string);
  'mime_type'?: (string);
  /**
   * Relative to the run directory: `images/<sha256>.png`.
   */
  'path'?: (string);
  'width'?: (number);
  'height'?: (number);
  /**
   * `full`, `downscaled`, `dropped` or `text`.
   */
  'shown'?: (string);
  /**
   * Index into Trajectory.tool_calls of the call that answered it.
   */
  'tool_call'?: (number);
  /**
   * Index into Trajectory.turns of the observation turn that shows it.
   */
  'turn'?: (number);
  /**
   * A shown image's placeholder span in response_ids. Absent: not shown as tokens.
   */
  'start'?: (number);
  'end'?: (number);
  /**
   * A downscaled image: the hash of the tool's own bytes.
   */
  'source_sha256'?: (string);
  '_start'?: "start";
  '_end'?: "end";
  '_source_sha256'?: "source_sha256";
}

/**
 * One tool-result image of a trajectory (docs/images.md): its bytes are at `path` under the run
 * directory; a shown image's `<|image_pad|>` tokens are response_ids[start, end).
 */
export interface TrajectoryImage__Output {
  /**
   * SHA-256 of the stored bytes, hex.
   */
  'sha256': (string);
  'mime_type': (string);
  /**
   * Relative to the run directory: `images/<sha256>.png`.
   */
  'path': (string);
  'width': (number);
  'height': (number);
  /**
   * `full`, `downscaled`, `dropped` or `text`.
   */
  'shown': (string);
  /**
   * Index into Trajectory.tool_calls of the call that answered it.
   */
  'tool_call': (number);
  /**
   * Index into Trajectory.turns of the observation turn that shows it.
   */
  'turn': (number);
  /**
   * A shown image's placeholder span in response_ids. Absent: not shown as tokens.
   */
  'start'?: (number);
  'end'?: (number);
  /**
   * A downscaled image: the hash of the tool's own bytes.
   */
  'source_sha256'?: (string);
  '_start'?: "start";
  '_end'?: "end";
  '_source_sha256'?: "source_sha256";
}
