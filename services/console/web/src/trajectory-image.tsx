// A tool-result image in the Trajectory view. A shown one (`full`, `downscaled`) sits in the token
// flow just before its first `<|image_pad|>` token; hovering it tells how it was shown, its size and
// its span. A `dropped` or `text` one, which has no tokens of its own, is a note under its observation
// turn. The bytes come from GET /api/runs/RUN/images/SHA256 (with the API key), or report.html's
// inlined data URL.
import { useEffect, useState } from "preact/hooks";
import { imageUrl, type TrajectoryImage } from "./api.ts";

/** The box an image is drawn in (CSS pixels): small images scaled up, large ones down. */
const BOX = 160;

export function imageLabel(image: TrajectoryImage): string {
  const span =
    image.start !== undefined && image.end !== undefined
      ? ` · tokens ${image.start}–${image.end - 1} (${image.end - image.start} placeholders)`
      : "";
  return `image ${image.sha256.slice(0, 12)} · shown ${image.shown} · ${image.width}×${image.height} ${image.mime_type}${span} · tool call ${image.tool_call}`;
}

export function ImageSpan(props: { run: string; image: TrajectoryImage }) {
  const { image } = props;
  return (
    <span
      class={`image-span shown-${image.shown}`}
      data-image={image.sha256}
      data-image-label={imageLabel(image)}
      title={imageLabel(image)}
    >
      <ImageBytes run={props.run} image={image} />
    </span>
  );
}

export function ImageNote(props: { run: string; image: TrajectoryImage }) {
  const { image } = props;
  const why =
    image.shown === "dropped"
      ? "dropped: past vision.max_images, the model saw a one-line note instead"
      : "not shown: the model saw a one-line text note (no image tokens in its chat template, or a type or size the processor refuses)";
  return (
    <div
      class={`image-note shown-${image.shown}`}
      data-image={image.sha256}
      data-image-label={imageLabel(image)}
      title={imageLabel(image)}
    >
      <ImageBytes run={props.run} image={image} />
      <span>
        image <span class="mono">{image.sha256.slice(0, 12)}</span> ({image.mime_type} {image.width}×
        {image.height}) {why}
      </span>
    </div>
  );
}

function ImageBytes(props: { run: string; image: TrajectoryImage }) {
  const { image } = props;
  const [src, setSrc] = useState<string | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    let made: string | null = null;
    imageUrl(`/api/runs/${encodeURIComponent(props.run)}/images/${image.sha256}`, abort.signal).then(
      (url) => {
        made = url;
        setSrc(url);
      },
      (err: Error) => {
        if (!abort.signal.aborted) setError(err.message);
      },
    );
    return () => {
      abort.abort();
      if (made?.startsWith("blob:")) URL.revokeObjectURL(made);
    };
  }, [props.run, image.sha256]);
  const scale = Math.min(BOX / Math.max(1, image.width), BOX / Math.max(1, image.height));
  const width = Math.max(1, Math.round(image.width * scale)) || BOX;
  const height = Math.max(1, Math.round(image.height * scale)) || BOX;
  if (error !== null) return <span class="image-missing">image not loaded: {error}</span>;
  if (src === null) return <span class="image-missing">image not in this report (size limit)</span>;
  if (src === undefined) return <span class="image-loading" style={{ width, height }} />;
  return <img src={src} width={width} height={height} alt={imageLabel(image)} />;
}
