// A line chart drawn by uPlot (canvas; tens of thousands of points stay smooth): one x axis, one or
// more series. The figure's data-points says how many points uPlot is drawing (tests and benchmarks
// read it), set after each setData.
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface Series {
  label: string;
  values: (number | null)[];
  stroke: string;
}

export function LineChart(props: {
  name: string;
  title: string;
  xLabel: string;
  x: number[];
  series: Series[];
  yRange?: [number, number];
  width?: number;
  height?: number;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const figure = useRef<HTMLElement>(null);
  const plot = useRef<uPlot | null>(null);
  const labels = props.series.map((s) => s.label).join("\u0000");
  const data = [props.x, ...props.series.map((s) => s.values)] as uPlot.AlignedData;

  useEffect(() => {
    if (!holder.current) return;
    const dense = props.x.length > 500;
    const u = new uPlot(
      {
        width: props.width ?? 560,
        height: props.height ?? 220,
        scales: { x: { time: false }, ...(props.yRange && { y: { range: props.yRange } }) },
        axes: [{ label: props.xLabel }, {}],
        series: [
          { label: props.xLabel },
          ...props.series.map((s) => ({
            label: s.label,
            stroke: s.stroke,
            width: 1.5,
            spanGaps: true,
            points: { show: !dense },
          })),
        ],
      },
      data,
      holder.current,
    );
    plot.current = u;
    if (figure.current) figure.current.dataset.points = String(u.data[0].length);
    return () => {
      u.destroy();
      plot.current = null;
    };
    // A new plot only when the series change; new data goes through setData below.
  }, [labels]);

  useEffect(() => {
    const u = plot.current;
    if (!u) return;
    u.setData(data);
    if (figure.current) figure.current.dataset.points = String(u.data[0].length);
  });

  return (
    <figure class="chart" data-chart={props.name} ref={figure}>
      <figcaption>{props.title}</figcaption>
      <div ref={holder} />
    </figure>
  );
}
