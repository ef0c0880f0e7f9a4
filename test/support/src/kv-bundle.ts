// The contract suite's reference key-value environment as an environment bundle (form "environment"),
// served by `rlf env serve`: the episode's `data` is the key-value object itself (no database files,
// so it starts empty; the config `{data: {...}}` gives the initial keys).
import { type BundleContent, writeBundle } from "@rlfactory/environments";

const schema = (properties: Record<string, unknown>, required: string[]) => ({
  type: "object",
  properties,
  required,
});

export const KV_BUNDLE: BundleContent = {
  name: "kv",
  form: "environment",
  source: { kind: "ftrl-environment", fixture: true },
  tools: [
    {
      name: "put",
      description: "Sets key to value",
      parameters: schema({ key: { type: "string" }, value: { type: "string" } }, ["key", "value"]),
    },
    {
      name: "get",
      description: "The value of key (null when unset)",
      parameters: schema({ key: { type: "string" } }, ["key"]),
    },
    {
      name: "append",
      description: "Appends value to key's value, after delay_ms of simulated work",
      parameters: schema(
        { key: { type: "string" }, value: { type: "string" }, delay_ms: { type: "integer" } },
        ["key", "value"],
      ),
    },
  ],
  code: {
    put: 'def put(data, key, value):\n    data[key] = value\n    return {"ok": True}\n',
    get: 'def get(data, key):\n    return {"value": data.get(key)}\n',
    append: [
      "import time",
      "",
      "",
      "def append(data, key, value, delay_ms=0):",
      "    time.sleep(delay_ms / 1000)",
      '    data[key] = data.get(key, "") + value',
      '    return {"value": data[key]}',
      "",
    ].join("\n"),
  },
  data: {},
  tasks: [],
};

/** Writes the key-value bundle into `dir`. */
export async function writeKvBundle(dir: string): Promise<void> {
  await writeBundle(dir, KV_BUNDLE);
}
