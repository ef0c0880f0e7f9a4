// The `model` field of OpenAI-style requests: the configured name, else the first id the server lists
// at `GET /v1/models`, asked once per client and shared by all requests (asked again only if it failed).
import { z } from "zod";
import { raceAbort } from "./cancellation.ts";
import type { HttpTransport } from "./http-transport.ts";
import { InferenceError } from "./types.ts";

const modelListSchema = z.looseObject({
  data: z.array(z.looseObject({ id: z.string().min(1) })),
});

export class ServedModel {
  readonly #transport: HttpTransport;
  readonly #configured: string | undefined;
  #listed: Promise<string> | undefined;
  /** The listed name once known: later requests take it without a race on their signal. */
  #name: string | undefined;

  constructor(transport: HttpTransport, configured: string | undefined) {
    this.#transport = transport;
    this.#configured = configured;
  }

  /** The model name; `signal` only cancels this caller's wait, not the shared lookup. */
  get(signal?: AbortSignal): Promise<string> {
    if (this.#configured !== undefined) return Promise.resolve(this.#configured);
    // a cancelled caller still learns it at once: the request it is for checks its signal first
    if (this.#name !== undefined) return Promise.resolve(this.#name);
    if (!this.#listed) {
      const lookup = this.#lookup();
      this.#listed = lookup;
      lookup.then(
        (name) => {
          if (this.#listed === lookup) this.#name = name;
        },
        () => {},
      );
      lookup.catch(() => {
        if (this.#listed === lookup) this.#listed = undefined;
      });
    }
    return raceAbort(this.#listed, signal);
  }

  async #lookup(): Promise<string> {
    const { data, server } = await this.#transport.call({
      method: "GET",
      path: "/v1/models",
      schema: modelListSchema,
    });
    const first = data.data[0];
    if (!first) {
      throw new InferenceError(
        "BAD_RESPONSE",
        `${server}/v1/models lists no model; set \`model\` in the config`,
      );
    }
    return first.id;
  }
}
