import {
  buildTrajectory,
  fixtureTrajectories,
  HOSTILE_TASK_ID,
} from "@rlfactory/test-support/report-fixtures";
import { describe, expect, it } from "vitest";
import { renderHtmlReport } from "./html-report.ts";
import { summarizeRollout } from "./summary.ts";

const VOID = new Set(["meta", "br", "hr", "img", "input", "link", "col", "wbr"]);

/** A tiny well-formedness check: every non-void tag closes in order (style contents skipped). */
function unbalancedTags(html: string): string[] {
  const body = html.replace(/<style>[\s\S]*?<\/style>/g, "").replace(/<!doctype html>/i, "");
  const stack: string[] = [];
  const problems: string[] = [];
  for (const m of body.matchAll(/<(\/?)([a-zA-Z][\w-]*)([^<>]*?)(\/?)>/g)) {
    const [, close, name, , selfClose] = m;
    const tag = name!.toLowerCase();
    if (selfClose || VOID.has(tag)) continue;
    if (!close) stack.push(tag);
    else if (stack.pop() !== tag) problems.push(`</${tag}> at ${m.index}`);
  }
  return [...problems, ...stack.map((t) => `unclosed <${t}>`)];
}

/** The <svg> inside the <figure> whose caption is `caption`. */
function chart(html: string, caption: string): string {
  const at = html.indexOf(`<figcaption>${caption}</figcaption>`);
  expect(at, `figure "${caption}"`).toBeGreaterThan(-1);
  return html.slice(at, html.indexOf("</svg>", at));
}

const bars = (svg: string) => [...svg.matchAll(/<rect class="bar"[^>]*><title>([^<]*)<\/title><\/rect>/g)];

describe("renderHtmlReport", () => {
  const trajectories = fixtureTrajectories();
  const summary = summarizeRollout(trajectories, { wallMs: 2000, config: { note: "<b>cfg</b>" } });
  const html = renderHtmlReport(trajectories, summary, { title: "Run <7>", maxExamples: 10 });

  it("is one well-formed document with balanced tags and svg elements", () => {
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(unbalancedTags(html)).toEqual([]);
    const open = html.match(/<svg[\s>]/g)?.length ?? 0;
    expect(open).toBe(html.match(/<\/svg>/g)?.length ?? -1);
    // Reward, turns, and one latency chart per tool (search, fetch).
    expect(open).toBe(4);
  });

  it("loads nothing from outside: no scripts, links, remote URLs or imports", () => {
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\ssrc=|\shref=|url\(|@import/i);
  });

  it("escapes user-provided strings: task ids, tool results, error messages, config, title", () => {
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain(HOSTILE_TASK_ID);
    expect(html).toContain("&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(html).toContain("judge &lt;b&gt;timed out&lt;/b&gt;");
    expect(html).toContain("&lt;b&gt;cfg&lt;/b&gt;");
    expect(html).toContain("<title>Run &lt;7&gt;</title>");
  });

  it("reward histogram: one bar per non-empty bin, with counts in the bar titles", () => {
    // Rewards 0 ×4, 0.5 ×1, 1 ×4 over ten bins of [0, 1]: three non-empty bins.
    const b = bars(chart(html, "Reward histogram"));
    expect(b.map((m) => m[1])).toEqual([
      "reward 0–0.1: 4 trajectories",
      "reward 0.5–0.6: 1 trajectories",
      "reward 0.9–1: 4 trajectories",
    ]);
  });

  it("turns chart: one bar per distinct sampled-turn count (1: 5, 2: 3, 3: 1, 4: 1), axis labels", () => {
    const svg = chart(html, "Sampled turns per trajectory");
    expect(bars(svg).map((m) => m[1])).toEqual([
      "1 sampled turns: 5 trajectories",
      "2 sampled turns: 3 trajectories",
      "3 sampled turns: 1 trajectories",
      "4 sampled turns: 1 trajectories",
    ]);
    expect(svg).toContain(">sampled turns</text>");
    expect(svg).toContain(">trajectories</text>");
    expect([...svg.matchAll(/<text class="count"[^>]*>(\d+)</g)].map((m) => m[1])).toEqual([
      "5",
      "3",
      "1",
      "1",
    ]);
  });

  it("latency charts per tool on 1-2-5 bins with p50 and p95 marked", () => {
    // search: 0.4 | 5, 7 | 10 | 20 | 300 → bins [0,1) [5,10) [10,20) [20,50) [200,500).
    const search = chart(html, "Latency of search");
    expect(bars(search)).toHaveLength(5);
    expect(bars(search)[1]![1]).toBe("5–10 ms: 2 calls");
    expect(search).toContain("<title>p50 7 ms</title>");
    expect(search).toContain("<title>p95 300 ms</title>");
    // fetch: 40 | 1500 → [20,50) and [1000,2000).
    const fetch = chart(html, "Latency of fetch");
    expect(bars(fetch).map((m) => m[1])).toEqual(["20–50 ms: 1 calls", "1000–2000 ms: 1 calls"]);
    expect(fetch).toContain("<title>p95 1.5 s</title>");
  });

  it("shows headline numbers, errors by code and statuses", () => {
    expect(html).toMatch(/<b>0\.5<\/b><span>reward mean \(9 scored\)<\/span>/);
    expect(html).toMatch(/<b>0\.333<\/b><span>exact match<\/span>/);
    expect(html).toMatch(/<span class="err">TIMEOUT<\/span><\/td><td class="n">2<\/td>/);
    expect(html).toMatch(/<span class="err">UNAVAILABLE<\/span><\/td><td class="n">1<\/td>/);
    expect(html).toMatch(/s-completed">completed<\/span><\/td><td class="n">6<\/td>/);
    expect(html).toMatch(/<td>max_turns<\/td><td class="n">2<\/td>/);
  });

  it("shows example trajectories with tool calls, latencies and error codes", () => {
    expect(html.match(/<article class="example">/g)).toHaveLength(10);
    expect(html).toContain('<span class="badge">first failed</span><b>B-2</b>');
    const a3 = html.slice(html.indexOf("<b>A-3</b>"));
    expect(a3.slice(0, a3.indexOf("</article>"))).toMatch(
      /<td>fetch<\/td>.*<td class="n">1\.5 s<\/td><td><span class="err">UNAVAILABLE/,
    );
  });

  it("caps the examples (default 6, at most 50) and shows the decoded final turn escaped", () => {
    const many = Array.from({ length: 60 }, (_, i) =>
      buildTrajectory({
        group: `g${i >> 1}`,
        index: i & 1,
        prompt: 2,
        turns: ["S2"],
        reward: i % 2,
        status: "completed",
      }),
    );
    const s = summarizeRollout(many, { wallMs: 100 });
    expect(renderHtmlReport(many, s).match(/<article/g)).toHaveLength(6);
    expect(renderHtmlReport(many, s, { maxExamples: 1000 }).match(/<article/g)).toHaveLength(50);
    const decoded = renderHtmlReport(many, s, {
      maxExamples: 1,
      decode: (ids) => ids.map((i) => `<${i}>`).join(""),
    });
    expect(decoded).toContain("<pre>&lt;100&gt;&lt;101&gt;</pre>");
  });

  it("shows per-turn rewards: the mean per sampled turn, and each example's turns with their rewards", () => {
    const withTurnRewards = (index: number, turnRewards: number[]) => ({
      ...buildTrajectory({
        group: "ftrl",
        index,
        prompt: 2,
        turns: ["S3", "O2", "S1"],
        calls: [{ name: "search", latency: 5 }], // made by the last sampled turn
        reward: 1,
        status: "completed",
      }),
      turn_rewards: turnRewards,
    });
    const ts = [withTurnRewards(0, [1, 0, 0.5]), withTurnRewards(1, [0, 0, -0.25])];
    const page = renderHtmlReport(ts, summarizeRollout(ts, { wallMs: 10 }));
    expect(unbalancedTags(page)).toEqual([]);
    // by sampled turn: turn 1 (1 + 0) / 2, turn 2 (0.5 − 0.25) / 2
    const section = page.slice(page.indexOf("<h3>Turn rewards (mean per sampled turn)</h3>"));
    expect(section.slice(0, section.indexOf("</table>"))).toContain(
      '<tr><td class="n">1</td><td class="n">0.5</td><td class="n">2</td></tr>\n' +
        '<tr><td class="n">2</td><td class="n">0.125</td><td class="n">2</td></tr>',
    );
    // each example lists its turns, the reward beside each, and the calls the sampled turn made
    const first = page.slice(page.indexOf("<b>ftrl-0</b>"));
    const turns = first.slice(first.indexOf("<h3>Turns and their rewards</h3>"), first.indexOf("</table>"));
    expect(turns).toContain(
      '<tr><td class="n">0</td><td>sampled 1</td><td class="n">3</td><td></td><td class="n">1</td></tr>\n' +
        '<tr><td class="n">1</td><td>observation</td><td class="n">2</td><td></td><td class="n">0</td></tr>\n' +
        '<tr><td class="n">2</td><td>sampled 2</td><td class="n">1</td><td>search</td><td class="n">0.5</td></tr>',
    );
    const second = page.slice(page.indexOf("<b>ftrl-1</b>"));
    expect(second.slice(0, second.indexOf("</article>"))).toContain('<td class="n">-0.25</td></tr>');
    // a run without per-turn rewards shows neither
    expect(html).not.toContain("Turn rewards");
    expect(html).not.toContain("Turns and their rewards");
  });

  it("renders an empty rollout", () => {
    const empty = renderHtmlReport([], summarizeRollout([], { wallMs: 0 }));
    expect(unbalancedTags(empty)).toEqual([]);
    expect(empty).toContain("no scored trajectories");
  });
});
