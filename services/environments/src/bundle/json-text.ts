// A bundle's database file kept as its text: the key order (digit-string keys too, which a JS object
// puts first and ascending) and the number spelling (`198.0`, which a JS number writes `198`) stay as
// written, so the Python tools read exactly what `json.load` of the source file gives.

export class JsonText {
  /** The file's text, byte for byte as written. */
  readonly text: string;
  /** Throws a SyntaxError when `text` is not JSON. */
  constructor(text: string) {
    JSON.parse(text);
    this.text = text;
  }
  /** The parsed value, as JS reads it (for value comparisons: key order and `N.0` are lost). */
  value(): unknown {
    return JSON.parse(this.text);
  }
}
