// The console as a person sees it in the tests: a console server (buildConsoleApp) on a free loopback
// port and Debian's Chromium (installed by .ci/run; CHROMIUM_PATH to use another), headless, driven by
// playwright-core.
import { buildConsoleApp, type ConsoleOptions } from "@rlfactory/console";
import type { FastifyInstance } from "fastify";
import { type Browser, chromium } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Headless Chromium. --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}

export interface ConsoleInChromium {
  app: FastifyInstance;
  /** The console's base URL. */
  url: string;
  browser: Browser;
  /** Closes the browser, then the console server. */
  close(): Promise<void>;
}

export async function openConsoleInChromium(options: ConsoleOptions): Promise<ConsoleInChromium> {
  const app = buildConsoleApp(options);
  try {
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    const browser = await launchChromium();
    return {
      app,
      url,
      browser,
      close: async () => {
        await browser.close();
        await app.close();
      },
    };
  } catch (err) {
    await app.close();
    throw err;
  }
}
