// A form generated from a tool's input schema (JSON Schema, object at the top): strings, numbers and
// integers, booleans and enums get their own inputs; arrays, objects and anything else are JSON text.
// `argumentsFrom` reads the filled form back into the call's arguments (errors name the field).
import { useState } from "preact/hooks";

interface PropSchema {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
  default?: unknown;
}

export interface Field {
  name: string;
  kind: "string" | "number" | "integer" | "boolean" | "enum" | "json";
  required: boolean;
  description: string;
  options: unknown[];
  initial: string;
}

export function fieldsOf(schema: unknown): Field[] {
  const s = (schema ?? {}) as { properties?: Record<string, PropSchema>; required?: string[] };
  const required = new Set(s.required ?? []);
  return Object.entries(s.properties ?? {}).map(([name, p]) => {
    const type = Array.isArray(p.type) ? p.type.find((t) => t !== "null") : p.type;
    const kind: Field["kind"] = Array.isArray(p.enum)
      ? "enum"
      : type === "string" || type === "number" || type === "integer" || type === "boolean"
        ? type
        : "json";
    const initial =
      p.default === undefined
        ? ""
        : kind === "string" || kind === "enum"
          ? String(p.default)
          : JSON.stringify(p.default);
    return {
      name,
      kind,
      required: required.has(name),
      description: p.description ?? "",
      options: p.enum ?? [],
      initial,
    };
  });
}

/** The arguments object from the form's values; an empty optional field is left out. */
export function argumentsFrom(fields: Field[], values: Record<string, string>): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name] ?? f.initial;
    if (v === "" && !f.required) continue;
    if (f.kind === "string") args[f.name] = v;
    else if (f.kind === "number" || f.kind === "integer") {
      const n = Number(v);
      if (v === "" || Number.isNaN(n)) throw new Error(`${f.name}: not a number`);
      args[f.name] = n;
    } else if (f.kind === "boolean") args[f.name] = v === "true";
    else if (f.kind === "enum") args[f.name] = f.options.find((o) => String(o) === v) ?? v;
    else {
      try {
        args[f.name] = JSON.parse(v);
      } catch {
        throw new Error(`${f.name}: not JSON`);
      }
    }
  }
  return args;
}

export function SchemaForm(props: { fields: Field[]; onValues: (values: Record<string, string>) => void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const set = (name: string, v: string) => {
    const next = { ...values, [name]: v };
    setValues(next);
    props.onValues(next);
  };
  return (
    <div class="schema-form">
      {props.fields.map((f) => {
        const v = values[f.name] ?? f.initial;
        const id = `field-${f.name}`;
        return (
          <div key={f.name} class="field" data-field={f.name}>
            <label class="mono" htmlFor={id}>
              {f.name}
              {f.required ? " *" : ""} <small>({f.kind})</small>
            </label>
            {f.kind === "boolean" ? (
              <input
                id={id}
                type="checkbox"
                checked={v === "true"}
                onChange={(e) => set(f.name, String(e.currentTarget.checked))}
              />
            ) : f.kind === "enum" ? (
              <select id={id} value={v} onChange={(e) => set(f.name, e.currentTarget.value)}>
                <option value="">—</option>
                {f.options.map((o) => (
                  <option key={String(o)} value={String(o)}>
                    {String(o)}
                  </option>
                ))}
              </select>
            ) : f.kind === "json" ? (
              <textarea id={id} rows={3} value={v} onInput={(e) => set(f.name, e.currentTarget.value)} />
            ) : f.kind === "string" ? (
              <input id={id} type="text" value={v} onInput={(e) => set(f.name, e.currentTarget.value)} />
            ) : (
              <input id={id} type="number" value={v} onInput={(e) => set(f.name, e.currentTarget.value)} />
            )}
            {f.description ? <small class="muted">{f.description}</small> : null}
          </div>
        );
      })}
    </div>
  );
}
