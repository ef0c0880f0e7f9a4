// `rlf-sim factory`'s flags: --help, and usage errors naming the flag (the served fixture itself is
// run by test/examples/ftrl-hotpotqa.test.ts, which rebuilds the shipped example against it).

import { UsageError } from "@rlfactory/kit/command-line";
import { describe, expect, it, vi } from "vitest";
import { runSimulateFactoryCommand, SIMULATE_FACTORY_USAGE } from "./command.ts";

describe("rlf-sim factory", () => {
  it("prints its usage, which says it is simulated, not a model", async () => {
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      expect(await runSimulateFactoryCommand(["--help"])).toBe(0);
      expect(write).toHaveBeenCalledWith(SIMULATE_FACTORY_USAGE);
    } finally {
      write.mockRestore();
    }
    expect(SIMULATE_FACTORY_USAGE).toContain(
      "SIMULATED model for rlf env build (scripted answers, not a model)",
    );
    expect(SIMULATE_FACTORY_USAGE).toContain("--mix-structures");
  });

  it("refuses an unknown flag and a bad port", async () => {
    await expect(runSimulateFactoryCommand(["--model", "x"])).rejects.toThrow(UsageError);
    await expect(runSimulateFactoryCommand(["--port", "http"])).rejects.toThrow(
      "--port must be a port number",
    );
  });
});
