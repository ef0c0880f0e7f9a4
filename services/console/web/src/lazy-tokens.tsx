// A block of tokens rendered only when it comes within a screen of the viewport (IntersectionObserver),
// with a placeholder of about its height until then; once rendered it stays. `eager` renders at once
// (short trajectories: every token is in the DOM, as the tests count them).
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** Tokens per line and line height of the placeholder (the .tokens font, about 80 em wide). */
const PER_LINE = 16;
const LINE_PX = 17;

export function LazyTokens(props: { eager: boolean; count: number; children: () => ComponentChildren }) {
  const [shown, setShown] = useState(props.eager);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (shown || !ref.current) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) setShown(true);
      },
      { rootMargin: "100% 0px" },
    );
    io.observe(ref.current);
    return () => io.disconnect();
  }, [shown]);
  if (shown) return <div class="tokens">{props.children()}</div>;
  return (
    <div
      ref={ref}
      class="tokens pending"
      style={{ height: `${Math.ceil(props.count / PER_LINE) * LINE_PX}px` }}
      data-pending={props.count}
    />
  );
}
