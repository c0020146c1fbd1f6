"use client";

import "uplot/dist/uPlot.min.css";
import type uPlot from "uplot";
import { useEffect, useRef, useState } from "react";

type Build = (lib: typeof uPlot) => Omit<uPlot.Options, "width" | "height">;

/**
 * A uPlot chart (canvas; ~22 KB gzipped, chosen over SVG chart kits of 100 KB
 * and more): axes and scales from uPlot, a tooltip line under the chart for
 * the point under the cursor, and the width of its container.
 * `build` gets the library so options can use its path builders (bars).
 */
export function Chart({
  label,
  data,
  build,
  tooltip,
  height = 150,
  testId,
}: {
  label: string;
  data: uPlot.AlignedData;
  build: Build;
  tooltip: (index: number) => string;
  height?: number;
  testId?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const [tip, setTip] = useState<string | null>(null);
  const latest = useRef({ build, tooltip, data });
  latest.current = { build, tooltip, data };

  // Created once (uPlot only runs in the browser: imported here, not at module load).
  useEffect(() => {
    let disposed = false;
    let observer: ResizeObserver | undefined;
    void import("uplot").then(({ default: lib }) => {
      if (disposed || !box.current) return;
      const options = latest.current.build(lib);
      const width = box.current.clientWidth || 320;
      chart.current = new lib(
        {
          ...options,
          width,
          height,
          hooks: {
            setCursor: [
              (u) => {
                const i = u.cursor.idx;
                setTip(i === null || i === undefined ? null : latest.current.tooltip(i));
              },
            ],
          },
        },
        latest.current.data,
        box.current,
      );
      observer = new ResizeObserver(() => chart.current?.setSize({ width: box.current?.clientWidth || width, height }));
      observer.observe(box.current);
    });
    return () => {
      disposed = true;
      observer?.disconnect();
      chart.current?.destroy();
      chart.current = null;
    };
  }, [height]);

  useEffect(() => {
    chart.current?.setData(data);
  }, [data]);

  return (
    <figure className="chart" style={{ margin: 0 }} data-testid={testId}>
      <div ref={box} role="img" aria-label={label} />
      <div className="chart-tip muted" data-testid="chart-tooltip" aria-live="polite">
        {tip ?? "\u00a0"}
      </div>
    </figure>
  );
}
