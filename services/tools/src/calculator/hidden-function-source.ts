// Function source never leaves an evaluation worker: in the worker's realm every function's
// `toString` answers its name only. Installed once per realm (on Function.prototype) rather than on
// each mathjs function, so no lazily built mathjs function has to be built just to be hidden, and
// functions outside mathjs' namespaces (transforms, typed-function internals) are covered too.

/** The name an expression sees for `fn`: `function cos`; transforms show the function they wrap. */
function shownName(fn: unknown): string {
  const name = typeof fn === "function" ? fn.name.replace(/Transform$/, "") : "";
  return name === "" ? "function" : `function ${name}`;
}

/** Makes `String(fn)`, `fn.toString()` and `fn.toLocaleString()` answer `function NAME` in this realm. */
export function hideFunctionSource(): void {
  Object.defineProperty(Function.prototype, "toString", {
    value: function hiddenSource(this: unknown) {
      return shownName(this);
    },
    writable: false,
    enumerable: false,
    configurable: false,
  });
}
