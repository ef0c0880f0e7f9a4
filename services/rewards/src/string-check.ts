// string_check: exact or substring comparison of the response with a reference → 1 or 0. Both sides are
// trimmed of leading/trailing whitespace first (a model's trailing newline is not a wrong answer);
// the case-insensitive operations compare `toLowerCase()` forms.
import type { StringCheckOperation } from "./grader-spec.ts";

export function stringCheck(operation: StringCheckOperation, response: string, reference: string): boolean {
  const a = response.trim();
  const b = reference.trim();
  switch (operation) {
    case "eq":
      return a === b;
    case "ne":
      return a !== b;
    case "ieq":
      return a.toLowerCase() === b.toLowerCase();
    case "contains":
    case "like":
      return a.includes(b);
    case "icontains":
    case "ilike":
      return a.toLowerCase().includes(b.toLowerCase());
  }
}
