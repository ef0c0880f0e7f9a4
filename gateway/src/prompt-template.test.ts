import { describe, expect, it } from "vitest";
import { ConfigError, normaliseConfig } from "./config.ts";
import { renderTemplate, templatePlaceholders } from "./prompt-template.ts";

describe("a model tool's prompt template", () => {
  it("replaces each {{arg}} by the argument: text as it is, other values as JSON, absent ones empty", () => {
    const template = "Summarise in {{max_words}} words ({{ style }}): {{text}} {{opts}}{{missing}}.";
    expect(
      renderTemplate(template, { text: "the fox", max_words: 5, style: "plain", opts: { a: [1] } }),
    ).toBe('Summarise in 5 words (plain): the fox {"a":[1]}.');
  });

  it("never expands a placeholder that an argument's own text holds", () => {
    expect(renderTemplate("{{a}} / {{b}}", { a: "{{b}}", b: "secret" })).toBe("{{b}} / secret");
  });

  it("lists the names it uses once each, in order of first use", () => {
    expect(templatePlaceholders("{{b}} {{a}} {{ b }} {x} {{1bad}}")).toEqual(["b", "a"]);
  });

  it("a config whose template names no property of the input schema is refused", () => {
    const server = (content: string) => ({
      servers: {
        writer: {
          kind: "model",
          endpoint: { base_url: "http://127.0.0.1:1/v1", model: "m" },
          model_tools: {
            summarise: {
              input_schema: { type: "object", properties: { text: { type: "string" } } },
              messages: [{ role: "user", content }],
            },
          },
        },
      },
    });
    expect(() => normaliseConfig(server("Summarise {{txt}}"))).toThrow(ConfigError);
    expect(() => normaliseConfig(server("Summarise {{txt}}"))).toThrow(/\{\{txt\}\}.*input_schema/);
    const ok = normaliseConfig(server("Summarise {{text}}"));
    expect(ok.servers[0]?.transport).toMatchObject({
      kind: "model",
      endpoint: { baseUrl: "http://127.0.0.1:1/v1", model: "m" },
      tools: [{ name: "summarise", messages: [{ role: "user", content: "Summarise {{text}}" }] }],
    });
  });
});
