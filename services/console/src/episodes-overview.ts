// The Episodes view's data: each environment server's live episodes (the gateway's read-only
// GET /v1/episodes) beside its episode counters from the gateway's metrics
// (rlf_gateway_episodes_{started,forked,ended,expired,lost}_total).
import type { EpisodeEvent, EpisodeServerRow } from "./api-types.ts";
import type { GatewayAdminClient } from "./gateway-admin-client.ts";
import { parsePrometheusText } from "./prometheus-text.ts";

const EVENTS: readonly EpisodeEvent[] = ["started", "forked", "ended", "expired", "lost"];

export async function episodesOverview(
  client: GatewayAdminClient,
  signal?: AbortSignal,
): Promise<{ servers: EpisodeServerRow[] }> {
  const [live, metrics] = await Promise.all([client.episodes(signal), client.metricsText(signal)]);
  const samples = parsePrometheusText(metrics);
  return {
    servers: live.servers.map((s) => {
      const count = (event: string) =>
        samples
          .filter((x) => x.name === `rlf_gateway_episodes_${event}_total` && x.labels.server === s.server)
          .reduce((a, x) => a + x.value, 0);
      return {
        server: s.server,
        live: s.episodes.length,
        episodes: s.episodes,
        counts: Object.fromEntries(EVENTS.map((e) => [e, count(e)])) as EpisodeServerRow["counts"],
      };
    }),
  };
}
