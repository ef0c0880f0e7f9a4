// Original file: proto/rlfactory/v1/judge.proto

export const JudgeMode = {
  JUDGE_MODE_UNSPECIFIED: 'JUDGE_MODE_UNSPECIFIED',
  /**
   * Score one response against the rubric (0..1).
   */
  JUDGE_MODE_POINTWISE: 'JUDGE_MODE_POINTWISE',
  /**
   * Score one response against a reference answer (0..1).
   */
  JUDGE_MODE_REFERENCE: 'JUDGE_MODE_REFERENCE',
  /**
   * Compare two responses; both orders are judged, a flip is a tie.
   */
  JUDGE_MODE_PAIRWISE: 'JUDGE_MODE_PAIRWISE',
  /**
   * Score a whole group in one call (RULER style): one score per response.
   */
  JUDGE_MODE_GROUP: 'JUDGE_MODE_GROUP',
  /**
   * A rule grader (string check, similarity, weighted formula); no model.
   */
  JUDGE_MODE_RULE: 'JUDGE_MODE_RULE',
} as const;

export type JudgeMode =
  | 'JUDGE_MODE_UNSPECIFIED'
  | 0
  /**
   * Score one response against the rubric (0..1).
   */
  | 'JUDGE_MODE_POINTWISE'
  | 1
  /**
   * Score one response against a reference answer (0..1).
   */
  | 'JUDGE_MODE_REFERENCE'
  | 2
  /**
   * Compare two responses; both orders are judged, a flip is a tie.
   */
  | 'JUDGE_MODE_PAIRWISE'
  | 3
  /**
   * Score a whole group in one call (RULER style): one score per response.
   */
  | 'JUDGE_MODE_GROUP'
  | 4
  /**
   * A rule grader (string check, similarity, weighted formula); no model.
   */
  | 'JUDGE_MODE_RULE'
  | 5

export type JudgeMode__Output = typeof JudgeMode[keyof typeof JudgeMode]
