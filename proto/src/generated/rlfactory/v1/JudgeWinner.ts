// Original file: proto/rlfactory/v1/judge.proto

export const JudgeWinner = {
  JUDGE_WINNER_UNSPECIFIED: 'JUDGE_WINNER_UNSPECIFIED',
  JUDGE_WINNER_FIRST: 'JUDGE_WINNER_FIRST',
  JUDGE_WINNER_SECOND: 'JUDGE_WINNER_SECOND',
  JUDGE_WINNER_TIE: 'JUDGE_WINNER_TIE',
} as const;

export type JudgeWinner =
  | 'JUDGE_WINNER_UNSPECIFIED'
  | 0
  | 'JUDGE_WINNER_FIRST'
  | 1
  | 'JUDGE_WINNER_SECOND'
  | 2
  | 'JUDGE_WINNER_TIE'
  | 3

export type JudgeWinner__Output = typeof JudgeWinner[keyof typeof JudgeWinner]
