// Error text reaching a caller carries no absolute path, whatever produced it.
import { describe, expect, it } from "vitest";
import { errorLine } from "./error-line.ts";
import { withoutHostPaths } from "./host-paths.ts";

describe("withoutHostPaths", () => {
  it("replaces absolute paths and leaves SQL messages alone", () => {
    expect(
      withoutHostPaths(
        "The module '/srv/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node' was compiled against another Node.js",
      ),
    ).toBe("The module '<path>' was compiled against another Node.js");
    expect(withoutHostPaths("unable to open C:\\data\\sql\\x.sqlite now")).toBe("unable to open <path> now");
    for (const message of ['near "/": syntax error', "no such column: nme", "division by zero in 1/2"]) {
      expect(withoutHostPaths(message)).toBe(message);
    }
  });

  it("is applied to every error line", () => {
    expect(errorLine(new Error("cannot open /var/lib/db/main.sqlite\nstack line"))).toBe(
      "cannot open <path>",
    );
  });
});
