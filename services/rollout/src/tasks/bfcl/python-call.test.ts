// The Python-call literal reader: a table of what it accepts (each value as Python evaluates it), what
// it refuses and how it says so, and every ground-truth string of BFCL multi_turn_base.
import { readFileSync } from "node:fs";
import { haveSharedData, sharedDataPath } from "@rlfactory/test-support/shared-data";
import { describe, expect, it } from "vitest";
import { PythonCallError, parsePythonCall } from "./python-call.ts";

describe("parsePythonCall: accepted", () => {
  it.each([
    ["cd(folder='document')", "cd", [], { folder: "document" }],
    ['cd(folder="document")', "cd", [], { folder: "document" }],
    ["ls()", "ls", [], {}],
    ["ls(a=True)", "ls", [], { a: true }],
    ["f(x=False, y=None)", "f", [], { x: false, y: null }],
    ["sort('final_report.pdf')", "sort", ["final_report.pdf"], {}],
    ["mv(source='a',destination='b')", "mv", [], { source: "a", destination: "b" }],
    ["  mv ( source = 'a' , destination = 'b' , )  ", "mv", [], { source: "a", destination: "b" }],
    ["f('a', 2, k=3)", "f", ["a", 2], { k: 3 }],
    ["f(n=42, m=-7, z=0, p=+5)", "f", [], { n: 42, m: -7, z: 0, p: 5 }],
    [
      "f(x=3.14, y=-0.5, z=.5, w=2., e=1e3, g=-2.5E-2, u=1_000)",
      "f",
      [],
      { x: 3.14, y: -0.5, z: 0.5, w: 2, e: 1000, g: -0.025, u: 1000 },
    ],
    ["f(x=- 3)", "f", [], { x: -3 }],
    ["mean(numbers=[1, 2.5, -3])", "mean", [], { numbers: [1, 2.5, -3] }],
    ["f(x=[], y=[[1], ['a', None]])", "f", [], { x: [], y: [[1], ["a", null]] }],
    [
      "f(t=(1, 'b'), one=(1,), empty=(), grouped=(5))",
      "f",
      [],
      { t: [1, "b"], one: [1], empty: [], grouped: 5 },
    ],
    ["f(d={'a': 1, \"b\": [True]}, e={})", "f", [], { d: { a: 1, b: [true] }, e: {} }],
    ["f(d={'k': 1, 'k': 2})", "f", [], { d: { k: 2 } }],
    ["f(s='I\\'m \"here\"')", "f", [], { s: 'I\'m "here"' }],
    ['f(s="say \\"hi\\" it\'s")', "f", [], { s: 'say "hi" it\'s' }],
    ["f(s='a\\nb\\tc\\\\d\\re')", "f", [], { s: "a\nb\tc\\d\re" }],
    ["f(s='\\x41\\u00e9\\U0001F600\\101')", "f", [], { s: "Aé😀A" }],
    ["f(s='keep \\d as is')", "f", [], { s: "keep \\d as is" }],
    ["f(s='ab' 'cd' \"ef\")", "f", [], { s: "abcdef" }],
    ["f(s='''tri'ple''')", "f", [], { s: "tri'ple" }],
    ["f(s='x=1, y)')", "f", [], { s: "x=1, y)" }],
    ["f(s='')", "f", [], { s: "" }],
    ["f(a=1,\n  b=2)", "f", [], { a: 1, b: 2 }],
    ["get_zipcode_based_on_city('San Francisco')", "get_zipcode_based_on_city", ["San Francisco"], {}],
  ])("%s", (text, name, args, kwargs) => {
    expect(parsePythonCall(text)).toEqual({ name, args, kwargs });
  });

  it("keeps keyword order and keeps `__proto__` as a plain key", () => {
    const call = parsePythonCall("f(b=1, a=2, __proto__=3)");
    expect(Object.keys(call.kwargs)).toEqual(["b", "a", "__proto__"]);
    expect(Object.getPrototypeOf(call.kwargs)).toBe(Object.prototype);
  });
});

describe("parsePythonCall: refused, with where and why", () => {
  it.each([
    ["cd(folder=document)", /"document" is not a literal/],
    ["cd(folder=os.getcwd())", /"os" is not a literal/],
    ["f(x=1+2)", /expected "," or "\)"/],
    ["f(x=[1, 2)", /expected "," or "\]"/],
    ["f(x={1, 2})", /dict keys must be strings/],
    ["f(x={'a', 'b'})", /sets are not supported/],
    ["f(x={1: 2})", /dict keys must be strings/],
    ["f(x='open)", /unterminated string at offset 4/],
    ["f(x='a\nb')", /unterminated string \(a line break/],
    ["f(x=f'a')", /string prefix "f" is not supported/],
    ["f(x=0x10)", /malformed number "0x"/],
    ["f(x=007)", /leading zeros/],
    ["f(x=12345678901234567890)", /too large/],
    ["f(x=-'a')", /"-" before something that is not a number/],
    ["f(k=1, 2)", /positional argument after a keyword argument/],
    ["f(k=1, k=2)", /keyword argument "k" repeated/],
    ["f(x=1) g()", /unexpected text after the call/],
    ["f(x=1", /expected "," or "\)"/],
    ["f(x=)", /unexpected "\)"/],
    ["(x=1)", /expected a function name at offset 0/],
    ["a.b(x=1)", /expected "\("/],
    ["", /expected a function name/],
    ["f(s='\\xZZ')", /bad \\x escape/],
    ["f(x=True == 1)", /expected "," or "\)"/],
  ])("%s", (text, message) => {
    expect(() => parsePythonCall(text)).toThrow(PythonCallError);
    expect(() => parsePythonCall(text)).toThrow(message);
  });
});

const ANSWERS = "bfcl/possible_answer/BFCL_v4_multi_turn_base.json";

describe.skipIf(!haveSharedData("BFCL multi_turn_base answers", ANSWERS))(
  "BFCL multi_turn_base ground truth",
  () => {
    it("every one of its 1142 call strings parses", () => {
      const strings = readFileSync(sharedDataPath(ANSWERS), "utf8")
        .split("\n")
        .filter((l) => l.trim() !== "")
        .flatMap((l) => (JSON.parse(l) as { ground_truth: string[][] }).ground_truth.flat());
      expect(strings).toHaveLength(1142);
      const failures = strings.flatMap((s) => {
        try {
          parsePythonCall(s);
          return [];
        } catch (e) {
          return [`${s}: ${(e as Error).message}`];
        }
      });
      expect(failures).toEqual([]);
      // Two spot checks, escapes and positional arguments included.
      expect(parsePythonCall("post_tweet(content='Off to Rome! Can\\'t wait')").kwargs.content).toBe(
        "Off to Rome! Can't wait",
      );
      expect(strings).toContain("sort('final_report.pdf')");
    });
  },
);
