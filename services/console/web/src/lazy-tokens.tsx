// A block of tokens rendered only when it comes within a screen of the viewport (IntersectionObserver),
// with a placeholder of about its height until then; once rendered it stays. `eager` renders at once
// (short trajectories: every token is in the DOM, as the tests count them). The placeholder's height
// is learnt from the blocks already rendered (pixels per token), so the page's length and the
// scrollbar stay close to the real ones as turns render.
import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";

/** Pixels per token: a first guess (16 tokens a 17 px line), then what rendered blocks measured. */
let pxPerToken = 17 / 16;

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
  useLayoutEffect(() => {
    // A large block measures the page's real density (small ones are mostly their last line).
    if (shown && !props.eager && ref.current && props.count >= 256)
      pxPerToken = ref.current.offsetHeight / props.count;
  }, [shown, props.eager, props.count]);
  if (shown)
    return (
      <div ref={ref} class="tokens">
        {props.children()}
      </div>
    );
  return (
    <div
      ref={ref}
      class="tokens pending"
      style={{ height: `${Math.ceil(props.count * pxPerToken)}px` }}
      data-pending={props.count}
    />
  );
}
