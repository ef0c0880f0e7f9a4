// Normalises text the way a reader (or a judge model) perceives it, so that a disguised token is seen
// for what it is before the sanitizer and the verdict parser look at it:
//   - invisible characters are dropped: zero-width spaces and joiners, the soft hyphen, bidi controls,
//     word joiners, the BOM, Unicode tag characters ("ASCII smuggling") and variation selectors;
//   - escapes are decoded: HTML entities (`&lt;`, `&#60;`, `&#x3c;`, with or without `;`), `\u003c` /
//     `\x3c` escapes and `%3C`-style percent escapes of `< > /`, repeatedly (at most DECODE_ROUNDS, so a
//     doubly escaped `&amp;lt;` is decoded too, and the work stays linear);
//   - NFKC folds compatibility forms (fullwidth `＜／ｓｃｏｒｅ＞`, small forms, ligatures);
//   - angle-bracket and slash look-alikes that NFKC keeps (`‹ › 〈 〉 ⟨ ⟩ ˂ ˃ ∕ ⁄`) become `< > /`;
//   - in a word that mixes Latin letters with Cyrillic or Greek look-alikes (`ѕсоrе`), the look-alikes
//     become their Latin twins. A word entirely in Cyrillic or Greek is left alone.
// Every step is one linear scan; the result is what is judged (and what the cache key sees).

/** Invisible characters, as code point ranges (combining ones among them, hence no regex literal). */
const INVISIBLE = new RegExp(
  `[${[
    [0xad, 0xad],
    [0x34f, 0x34f],
    [0x61c, 0x61c],
    [0x115f, 0x1160],
    [0x17b4, 0x17b5],
    [0x180b, 0x180f],
    [0x200b, 0x200f],
    [0x202a, 0x202e],
    [0x2060, 0x2064],
    [0x2066, 0x206f],
    [0x3164, 0x3164],
    [0xfe00, 0xfe0f],
    [0xfeff, 0xfeff],
    [0xffa0, 0xffa0],
    [0xe0000, 0xe007f],
    [0xe0100, 0xe01ef],
  ]
    .map(([from, to]) => `\\u{${(from as number).toString(16)}}-\\u{${(to as number).toString(16)}}`)
    .join("")}]`,
  "gu",
);

/** Most decode rounds: `&amp;amp;lt;` needs three. Bounded, so a deeper nesting costs no more. */
const DECODE_ROUNDS = 3;

const NAMED_ENTITIES: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
  sol: "/",
  bsol: "\\",
  colon: ":",
  equals: "=",
  lsqb: "[",
  rsqb: "]",
  lbrack: "[",
  rbrack: "]",
  lcub: "{",
  rcub: "}",
  lbrace: "{",
  rbrace: "}",
  vert: "|",
  verbar: "|",
  nbsp: " ",
  num: "#",
  ast: "*",
  lowbar: "_",
};

const ESCAPES =
  /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,8}));?|\\u\{?([0-9a-fA-F]{4,6})\}?|\\x([0-9a-fA-F]{2})|%(3[cCeE]|2[fF]|7[cC])/g;

function codePoint(n: number, fallback: string): string {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff)
    ? String.fromCodePoint(n)
    : fallback;
}

function decodeEscapes(text: string): string {
  return text.replace(ESCAPES, (whole, dec, hex, name, uni, byte, percent) => {
    if (dec !== undefined) return codePoint(Number.parseInt(dec, 10), whole);
    if (hex !== undefined) return codePoint(Number.parseInt(hex, 16), whole);
    if (name !== undefined) return NAMED_ENTITIES[(name as string).toLowerCase()] ?? whole;
    if (uni !== undefined) return codePoint(Number.parseInt(uni, 16), whole);
    if (byte !== undefined) return codePoint(Number.parseInt(byte, 16), whole);
    return codePoint(Number.parseInt(percent as string, 16), whole);
  });
}

/** Look-alikes NFKC does not fold. */
const PUNCTUATION_LOOKALIKES: Record<string, string> = {
  "‹": "<",
  "›": ">",
  "〈": "<",
  "〉": ">",
  "⟨": "<",
  "⟩": ">",
  "《": "<",
  "》": ">",
  "˂": "<",
  "˃": ">",
  ᐸ: "<",
  ᐳ: ">",
  "❮": "<",
  "❯": ">",
  "❬": "<",
  "❭": ">",
  "❰": "<",
  "❱": ">",
  "⧼": "<",
  "⧽": ">",
  "∕": "/",
  "⁄": "/",
  "⧸": "/",
  "╱": "/",
  "⟦": "[",
  "⟧": "]",
  "［": "[",
  "］": "]",
  "：": ":",
  "꞉": ":",
  ː: ":",
  "∶": ":",
  "＝": "=",
  "＂": '"',
  "“": '"',
  "”": '"',
  "｜": "|",
  "∣": "|",
};
const PUNCTUATION = new RegExp(`[${Object.keys(PUNCTUATION_LOOKALIKES).join("")}]`, "gu");

/** Cyrillic and Greek letters that look like Latin ones. */
const LETTER_LOOKALIKES: Record<string, string> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  і: "i",
  ї: "i",
  ј: "j",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ɡ: "g",
  А: "A",
  В: "B",
  Е: "E",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Т: "T",
  Х: "X",
  Ѕ: "S",
  І: "I",
  Ј: "J",
  Ԛ: "Q",
  Ԝ: "W",
  α: "a",
  ε: "e",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
};
const LOOKALIKE_LETTERS = new RegExp(`[${Object.keys(LETTER_LOOKALIKES).join("")}]`, "gu");
/** Words of letters (any script); bounded per word so the scan stays linear. */
const WORDS = /[\p{L}\p{M}]{1,200}/gu;
const HAS_LATIN = /[A-Za-z]/;
const HAS_LOOKALIKE = new RegExp(LOOKALIKE_LETTERS.source, "u");

function foldMixedScriptWords(text: string): string {
  return text.replace(WORDS, (word) =>
    HAS_LATIN.test(word) && HAS_LOOKALIKE.test(word)
      ? word.replace(LOOKALIKE_LETTERS, (c) => LETTER_LOOKALIKES[c] ?? c)
      : word,
  );
}

/** The text as it reads: see the header. Idempotent on its own output for all but pathological escapes. */
export function normaliseLookalikes(input: string): string {
  let text = input.replace(INVISIBLE, "");
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    const decoded = decodeEscapes(text).normalize("NFKC").replace(INVISIBLE, "");
    if (decoded === text) break;
    text = decoded;
  }
  text = text.replace(PUNCTUATION, (c) => PUNCTUATION_LOOKALIKES[c] ?? c);
  return foldMixedScriptWords(text);
}
