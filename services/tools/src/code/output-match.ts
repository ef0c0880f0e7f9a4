// Comparing a program's stdout with the expected one, as test-case rewards do: equal once line
// endings are unified, trailing whitespace is cut from every line and trailing blank lines dropped.

export function normaliseOutput(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trimEnd();
}

export function outputMatches(actual: string, expected: string): boolean {
  return normaliseOutput(actual) === normaliseOutput(expected);
}
