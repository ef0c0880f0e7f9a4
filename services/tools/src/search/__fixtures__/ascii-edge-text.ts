// Seeded random text dense in the ASCII edge cases of StandardTokenizer and EnglishAnalyzer: joiners
// between letters and digits, underscores, possessives, stop words, mixed case, every whitespace
// character, tokens longer than 255, and now and then a non-ASCII chunk.
import { rngStream } from "@rlfactory/kit";

const PIECES = [
  ..."aZsS09_.:',;-@!\"#/()[]&*+=?~`|\\<>$%^{}",
  ..." \t\n\r\f\v",
  "the",
  "The",
  "THE",
  "it's",
  "John's",
  "JOHN'S",
  "'s",
  "'S",
  "U.S.A",
  "can't",
  "3.14",
  "1,000",
  "1;2",
  "foo:bar",
  "foo_bar",
  "e-mail",
  "x@y.com",
  "running",
  "Generalizations",
  "ponies",
  "a.1",
  "1.a",
  "__",
  "x\u00a0y",
  "caf\u00e9",
  "John\u2019s",
  "\u65e5\u672c\u8a9e",
  "\u0e44\u0e17\u0e22",
  "\u{1F600}",
  "\u0130stanbul",
];

/** A generator of texts; `next()` gives one of up to `maxPieces` pieces. */
export function asciiEdgeTexts(seed: number, maxPieces = 60): { next(): string } {
  const random = rngStream(seed);
  const pick = () => PIECES[Math.floor(random() * PIECES.length)] as string;
  return {
    next() {
      const n = 1 + Math.floor(random() * maxPieces);
      let text = "";
      for (let i = 0; i < n; i++) {
        const r = random();
        if (r < 0.01)
          text += "ab_9".repeat(60 + Math.floor(random() * 80)); // 240..556 chars: chopped at 255
        else if (r < 0.35) text += " ";
        else text += pick();
      }
      return text;
    },
  };
}
