// The char-code tokenizer gives exactly the tokens of the UAX #29 rules restricted to ASCII as written
// with regexes, and analysis on top of it the terms of the token-at-a-time filter chain.
import { describe, expect, it } from "vitest";
import { asciiEdgeTexts } from "./__fixtures__/ascii-edge-text.ts";
import { regexAnalyze, regexTokenize } from "./__fixtures__/regex-analyzer.ts";
import { analyze, tokenize } from "./english-analyzer.ts";

describe("StandardTokenizer on ASCII", () => {
  it.each([
    ["U.S.A. can't 3.14 1,000 foo:bar foo_bar", ["U.S.A", "can't", "3.14", "1,000", "foo:bar", "foo_bar"]],
    ["e-mail x@y.com", ["e", "mail", "x", "y.com"]],
    ["a.1 1.a 1;2 a;b __ _x_ 'quoted' end.", ["a", "1", "1", "a", "1;2", "a", "b", "_x_", "quoted", "end"]],
    ["tab\tnew\nline\rform\fvert\vend", ["tab", "new", "line", "form", "vert", "end"]],
  ])("%s", (text, tokens) => {
    expect(tokenize(text)).toEqual(tokens);
  });

  it("chops a token longer than 255 characters into pieces", () => {
    expect(tokenize(`x ${"ab".repeat(200)} y`)).toEqual([
      "x",
      "ab".repeat(127).concat("a"),
      "b".concat("ab".repeat(72)),
      "y",
    ]);
  });

  it("equals the regex rules on 20,000 random texts of edge cases", () => {
    const texts = asciiEdgeTexts(7);
    let tokens = 0;
    for (let i = 0; i < 20_000; i++) {
      const text = texts.next();
      const expected = regexTokenize(text);
      expect(tokenize(text), JSON.stringify(text)).toEqual(expected);
      tokens += expected.length;
    }
    expect(tokens).toBeGreaterThan(100_000);
  });
});

describe("EnglishAnalyzer", () => {
  it("gives the token-at-a-time terms on 20,000 random texts of edge cases", () => {
    const texts = asciiEdgeTexts(11);
    for (let i = 0; i < 20_000; i++) {
      const text = texts.next();
      expect(analyze(text), JSON.stringify(text)).toEqual(regexAnalyze(text));
    }
  });
});
