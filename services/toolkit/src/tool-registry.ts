// The process-wide set of tools a server offers. Shared by every MCP instance the server builds
// (one per stdio connection, HTTP session or 2026-era request), so schemas are converted once.
import type { Tool } from "@modelcontextprotocol/server";
import type { ToolDefinition } from "./define-tool.ts";
import { toolDescriptor } from "./tool-descriptor.ts";

export interface RegisteredTool {
  readonly definition: ToolDefinition;
  readonly descriptor: Tool;
}

export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  private listing: Tool[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(definitions: readonly ToolDefinition[] = []) {
    for (const def of definitions) this.insert(def);
    this.listing = this.buildListing();
  }

  /** Adds a tool and tells the listeners (which emit notifications/tools/list_changed). */
  add(def: ToolDefinition): void {
    this.insert(def);
    this.listing = this.buildListing();
    for (const listener of this.listeners) listener();
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** The tools/list entries, in registration order. */
  list(): Tool[] {
    return this.listing;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private insert(def: ToolDefinition): void {
    if (this.tools.has(def.name)) throw new Error(`tool ${def.name} is already registered`);
    this.tools.set(def.name, { definition: def, descriptor: toolDescriptor(def) });
  }

  private buildListing(): Tool[] {
    return [...this.tools.values()].map((t) => t.descriptor);
  }
}
