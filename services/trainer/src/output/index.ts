// Output files of a rollout run: trajectories as Parquet (the JSONL form lives in trajectory.ts).
export * from "./parquet.ts";
