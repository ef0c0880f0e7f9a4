// The Node flags the image runs every `rlf` service with (deploy/Dockerfile's ENTRYPOINT; test/deploy
// checks they agree): a 32 MiB young generation, so fewer scavenges in these message-heavy processes.
// Benchmarks that stand in for a service process run it with the same flags.
export const SERVICE_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=32"];
