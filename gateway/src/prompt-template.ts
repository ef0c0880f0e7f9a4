// A model tool's prompt template: `{{name}}` (spaces inside the braces allowed) is replaced by the
// call's argument of that name — a string as it is, any other value as JSON, an absent one as "".
// Replacement is one pass over the template: an argument's text is never itself searched for
// placeholders, so a caller cannot inject another argument (or anything else) through one.

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The argument names a template uses, in order of first use. */
export function templatePlaceholders(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1] as string))];
}

/** The template with every placeholder replaced by its argument. */
export function renderTemplate(template: string, args: Readonly<Record<string, unknown>>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => argumentText(args[name]));
}

function argumentText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}
