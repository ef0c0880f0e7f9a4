// Environment bundles (services/environments/README.md#environment-bundles) under the console's
// --bundles folder: each subdirectory holding a manifest.json (or the folder itself, when it is one).
// A bundle's id is its directory name; it is read with readBundle, so every file's digest and the hash
// are verified, and a bundle that fails verification is shown with the reason.
import { existsSync, readdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { readBundle } from "@rlfactory/environments";
import type { BundleDetail, BundleListing } from "./api-types.ts";

const BUNDLE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export class BundleDirectories {
  readonly #root: string | undefined;

  /** `root` undefined: the console was started without --bundles; there are none. */
  constructor(root: string | undefined) {
    this.#root = root === undefined ? undefined : resolve(root);
  }

  async list(): Promise<BundleListing[]> {
    const out: BundleListing[] = [];
    for (const [id, dir] of this.#dirs()) {
      const {
        tool_list: _t,
        task_list: _k,
        validation_report: _v,
        source: _s,
        ...row
      } = await detail(id, dir);
      out.push(row);
    }
    return out;
  }

  /** Undefined when there is no such bundle. */
  async get(id: string): Promise<BundleDetail | undefined> {
    const dir = this.#dirs().get(id);
    return dir === undefined ? undefined : detail(id, dir);
  }

  #dirs(): Map<string, string> {
    const dirs = new Map<string, string>();
    const root = this.#root;
    if (root === undefined || !existsSync(root)) return dirs;
    if (existsSync(join(root, "manifest.json"))) dirs.set(basename(root), root);
    for (const e of readdirSync(root, { withFileTypes: true })) {
      if (e.isDirectory() && BUNDLE_ID.test(e.name) && existsSync(join(root, e.name, "manifest.json")))
        dirs.set(e.name, join(root, e.name));
    }
    return dirs;
  }
}

async function detail(id: string, dir: string): Promise<BundleDetail> {
  try {
    const b = await readBundle(dir);
    const v = b.validation as BundleListing["validation"] | undefined;
    return {
      id,
      name: b.name,
      form: b.form,
      hash: b.hash,
      tools: b.tools.length,
      tasks: b.tasks.length,
      error: null,
      validation: v
        ? { checked: v.checked, passed: v.passed, repaired: v.repaired, dropped: v.dropped }
        : null,
      source: b.source,
      tool_list: b.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
      task_list: b.tasks,
      validation_report: b.validation ?? null,
    };
  } catch (err) {
    return {
      id,
      name: null,
      form: null,
      hash: null,
      tools: 0,
      tasks: 0,
      error: (err as Error).message,
      validation: null,
      source: null,
      tool_list: [],
      task_list: [],
      validation_report: null,
    };
  }
}
