import { useEffect, useState } from "preact/hooks";
import { getJson } from "./api.ts";

export type Loaded<T> = { state: "loading" } | { state: "error"; message: string } | { state: "ok"; data: T };

/** GETs a console API path; again every `refreshMs` when given (live views). */
export function useJson<T>(path: string, refreshMs?: number): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: "loading" });
  useEffect(() => {
    const abort = new AbortController();
    const load = () =>
      getJson<T>(path, abort.signal).then(
        (data) => setLoaded({ state: "ok", data }),
        (err: Error) => {
          if (!abort.signal.aborted) setLoaded({ state: "error", message: err.message });
        },
      );
    load();
    const timer = refreshMs ? setInterval(load, refreshMs) : undefined;
    return () => {
      abort.abort();
      if (timer) clearInterval(timer);
    };
  }, [path, refreshMs]);
  return loaded;
}
