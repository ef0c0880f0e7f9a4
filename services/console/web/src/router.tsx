// One route per view, matched on the path so every view has a URL that can be shared.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { staticExport } from "./api.ts";

/** In a static export (report.html) the path lives here, not in the file:// URL. */
let staticPath = staticExport()?.path;

function currentPath(): string {
  return staticPath ?? location.pathname;
}

export function navigate(path: string): void {
  if (staticPath !== undefined) staticPath = path;
  else history.pushState(null, "", path);
  dispatchEvent(new PopStateEvent("popstate"));
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const onPop = () => setPath(currentPath());
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);
  return path;
}

export function Link(props: { href: string; children: ComponentChildren; class?: string }) {
  return (
    <a
      href={props.href}
      class={props.class}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}
