// A Python function call with literal arguments, read without evaluating anything: BFCL writes its
// multi-turn ground truth this way (`cd(folder='document')`, `sort('final_report.pdf')`,
// `mean(numbers=[1, 2.5, -3])`). Accepted: a bare function name; positional arguments, then keyword
// arguments; as values, strings (single or double quotes, Python escapes, adjacent strings joined),
// ints, floats, a leading `-`/`+`, True/False/None, lists, tuples, dicts with string keys. Anything
// else (a name, an expression, a call, a set, f-strings) is an error saying where.

/** One parsed call: JSON values (tuples as arrays, None as null). */
export interface PythonCall {
  name: string;
  /** Positional arguments, in order. */
  args: unknown[];
  /** Keyword arguments, in order of appearance. */
  kwargs: Record<string, unknown>;
}

export class PythonCallError extends Error {
  override readonly name = "PythonCallError";
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /(?:\d(?:_?\d)*)?(?:\.(?:\d(?:_?\d)*)?)?(?:[eE][+-]?\d(?:_?\d)*)?/y;
const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  "\n": "",
};

/** Parses `name(arg, ..., key=value, ...)`; throws {@link PythonCallError} naming the offset on anything else. */
export function parsePythonCall(text: string): PythonCall {
  return new Reader(text).call();
}

class Reader {
  private pos = 0;
  private readonly text: string;
  constructor(text: string) {
    this.text = text;
  }

  call(): PythonCall {
    this.skip();
    const name = this.ident("a function name");
    this.skip();
    this.expect("(");
    const args: unknown[] = [];
    const kwargs: Record<string, unknown> = {};
    let sawKeyword = false;
    for (;;) {
      this.skip();
      if (this.peek() === ")") break;
      const keyword = this.keywordAhead();
      if (keyword !== undefined) {
        if (Object.hasOwn(kwargs, keyword)) this.fail(`keyword argument "${keyword}" repeated`);
        setOwn(kwargs, keyword, this.value());
        sawKeyword = true;
      } else {
        if (sawKeyword) this.fail("positional argument after a keyword argument");
        args.push(this.value());
      }
      this.skip();
      if (this.peek() === ",") {
        this.pos++;
        continue;
      }
      if (this.peek() !== ")") this.fail('expected "," or ")"');
    }
    this.pos++; // ")"
    this.skip();
    if (this.pos < this.text.length) this.fail("unexpected text after the call");
    return { name, args, kwargs };
  }

  /** `name =` (not `==`) at the current position: consumes it and returns the name. */
  private keywordAhead(): string | undefined {
    IDENT.lastIndex = this.pos;
    const m = IDENT.exec(this.text);
    if (m === null) return undefined;
    let at = this.pos + m[0].length;
    while (/\s/.test(this.text[at] ?? "")) at++;
    if (this.text[at] !== "=" || this.text[at + 1] === "=") return undefined;
    this.pos = at + 1;
    return m[0];
  }

  private value(): unknown {
    this.skip();
    const c = this.peek();
    if (c === "-" || c === "+") {
      this.pos++;
      this.skip();
      const n = this.value();
      if (typeof n !== "number") this.fail(`"${c}" before something that is not a number`);
      return c === "-" ? -n : n;
    }
    if (c === "'" || c === '"') return this.strings();
    if (c === "[") return this.sequence("[", "]");
    if (c === "(") return this.parenthesized();
    if (c === "{") return this.dict();
    if (c !== undefined && /[0-9.]/.test(c)) return this.number();
    IDENT.lastIndex = this.pos;
    const m = IDENT.exec(this.text);
    if (m !== null) {
      const word = m[0];
      if (word === "True" || word === "False" || word === "None") {
        this.pos += word.length;
        return word === "True" ? true : word === "False" ? false : null;
      }
      if (/^[rRbBuUfF]{1,2}$/.test(word) && /['"]/.test(this.text[this.pos + word.length] ?? "")) {
        this.fail(`string prefix "${word}" is not supported`);
      }
      this.fail(`"${word}" is not a literal (names and expressions are not evaluated)`);
    }
    this.fail(c === undefined ? "a value is missing" : `unexpected "${c}"`);
  }

  private number(): number {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text);
    const raw = m?.[0] ?? "";
    if (raw === "" || raw === "." || /^\.?[eE]/.test(raw)) this.fail("malformed number");
    if (/^[\d_]+$/.test(raw) && /^0[\d_]*[1-9]/.test(raw))
      this.fail(`leading zeros in "${raw}" are not allowed`);
    const next = this.text[this.pos + raw.length];
    if (next !== undefined && /[A-Za-z0-9_]/.test(next)) this.fail(`malformed number "${raw}${next}"`);
    const n = Number(raw.replaceAll("_", ""));
    if (/^[\d_]+$/.test(raw) && !Number.isSafeInteger(n)) this.fail(`integer ${raw} is too large`);
    this.pos += raw.length;
    return n;
  }

  /** One string literal, or several adjacent ones (Python joins them). */
  private strings(): string {
    let out = this.string();
    for (;;) {
      const save = this.pos;
      this.skip();
      const c = this.peek();
      if (c !== "'" && c !== '"') {
        this.pos = save;
        return out;
      }
      out += this.string();
    }
  }

  private string(): string {
    const quote = this.text[this.pos]!;
    const triple = this.text.startsWith(quote.repeat(3), this.pos);
    const close = triple ? quote.repeat(3) : quote;
    const start = this.pos;
    this.pos += close.length;
    let out = "";
    for (;;) {
      if (this.pos >= this.text.length) {
        this.pos = start;
        this.fail("unterminated string");
      }
      if (this.text.startsWith(close, this.pos)) {
        this.pos += close.length;
        return out;
      }
      const c = this.text[this.pos]!;
      if (c === "\n" && !triple) {
        this.pos = start;
        this.fail("unterminated string (a line break inside quotes)");
      }
      if (c !== "\\") {
        out += c;
        this.pos++;
        continue;
      }
      out += this.escape();
    }
  }

  private escape(): string {
    const e = this.text[this.pos + 1];
    if (e === undefined) this.fail("unterminated string");
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      this.pos += 2;
      return simple;
    }
    const hex = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    if (hex > 0) {
      const digits = this.text.slice(this.pos + 2, this.pos + 2 + hex);
      if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits)) this.fail(`bad \\${e} escape`);
      const code = Number.parseInt(digits, 16);
      if (code > 0x10ffff) this.fail(`bad \\${e} escape`);
      this.pos += 2 + hex;
      return String.fromCodePoint(code);
    }
    const octal = /^[0-7]{1,3}/.exec(this.text.slice(this.pos + 1, this.pos + 4));
    if (octal !== null) {
      this.pos += 1 + octal[0].length;
      return String.fromCodePoint(Number.parseInt(octal[0], 8));
    }
    if (e === "N") this.fail("\\N{...} escapes are not supported");
    // Python keeps an unknown escape as written: "\d" is a backslash and a d.
    this.pos += 2;
    return `\\${e}`;
  }

  private sequence(open: string, end: string): unknown[] {
    this.expect(open);
    const items: unknown[] = [];
    for (;;) {
      this.skip();
      if (this.peek() === end) break;
      items.push(this.value());
      this.skip();
      if (this.peek() === ",") {
        this.pos++;
        continue;
      }
      if (this.peek() !== end) this.fail(`expected "," or "${end}"`);
    }
    this.pos++;
    return items;
  }

  /** `()` and `(a, b)` and `(a,)` are tuples (arrays); `(a)` is just `a`. */
  private parenthesized(): unknown {
    const start = this.pos;
    this.pos++;
    this.skip();
    if (this.peek() === ")") {
      this.pos++;
      return [];
    }
    const first = this.value();
    this.skip();
    if (this.peek() === ")") {
      this.pos++;
      return first;
    }
    this.pos = start;
    return this.sequence("(", ")");
  }

  private dict(): Record<string, unknown> {
    this.expect("{");
    const out: Record<string, unknown> = {};
    for (;;) {
      this.skip();
      if (this.peek() === "}") break;
      const keyAt = this.pos;
      const key = this.value();
      if (typeof key !== "string") {
        this.pos = keyAt;
        this.fail("dict keys must be strings");
      }
      this.skip();
      if (this.peek() !== ":") this.fail(this.peek() === "," ? "sets are not supported" : 'expected ":"');
      this.pos++;
      // A repeated key keeps the last value, as Python does.
      setOwn(out, key, this.value());
      this.skip();
      if (this.peek() === ",") {
        this.pos++;
        continue;
      }
      if (this.peek() !== "}") this.fail('expected "," or "}"');
    }
    this.pos++;
    return out;
  }

  private ident(what: string): string {
    IDENT.lastIndex = this.pos;
    const m = IDENT.exec(this.text);
    if (m === null) this.fail(`expected ${what}`);
    this.pos += m[0].length;
    return m[0];
  }

  private expect(c: string): void {
    if (this.peek() !== c) this.fail(`expected "${c}"`);
    this.pos++;
  }

  private peek(): string | undefined {
    return this.text[this.pos];
  }

  private skip(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
  }

  private fail(message: string): never {
    throw new PythonCallError(`${message} at offset ${this.pos}`);
  }
}

/** `obj[key] = value` that also holds for keys like `__proto__`. */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
