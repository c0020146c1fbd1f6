"use client";

import {
  Panel,
  Position,
  ViewportPortal,
  getSmoothStepPath,
  useReactFlow,
  useStore,
  useStoreApi,
  type ReactFlowState,
} from "@xyflow/react";
import { XYMinimap, type XYMinimapInstance } from "@xyflow/system";
import { memo, useEffect, useMemo, useRef } from "react";
import { NODE_H, NODE_W, edgesInView, type LaidEdge, type LaidNode, type Positions } from "./tree-layout";

/*
 * Edges and the minimap of a big reply tree, drawn from the layout instead of
 * React Flow's store: React Flow indexes every edge it is given (about 90 ms
 * for 5,000) and its MiniMap subscribes one store selector per node, so each
 * pan frame ran 5,000 selectors. Here the edges on screen are one <path>,
 * recomputed per frame from the layout, and the minimap is a few <path>s, one
 * per colour, built once per layout. Pan and zoom on the minimap are React
 * Flow's own (XYMinimap from @xyflow/system, what its MiniMap uses).
 */

type Bounds = { x: number; y: number; width: number; height: number };

/** Extra room around the screen, in screen pixels, so edges are there before they scroll in. */
const EDGE_MARGIN = 200;

const viewSelector = (s: ReactFlowState) => ({
  tx: s.transform[0],
  ty: s.transform[1],
  zoom: s.transform[2],
  width: s.width,
  height: s.height,
});
const sameView = (a: ReturnType<typeof viewSelector>, b: ReturnType<typeof viewSelector>) =>
  a.tx === b.tx && a.ty === b.ty && a.zoom === b.zoom && a.width === b.width && a.height === b.height;

/** The edges that cross the screen, as React Flow's smooth-step edges (same look, same CSS class). */
export const TreeEdges = memo(function TreeEdges({ edges, positions }: { edges: LaidEdge[]; positions: Positions }) {
  const view = useStore(viewSelector, sameView);
  if (!view.width || !view.height) return null;
  const left = (-view.tx - EDGE_MARGIN) / view.zoom;
  const top = (-view.ty - EDGE_MARGIN) / view.zoom;
  const right = (view.width - view.tx + EDGE_MARGIN) / view.zoom;
  const bottom = (view.height - view.ty + EDGE_MARGIN) / view.zoom;
  const shown = edgesInView(edges, positions, { left, top, right, bottom });
  let d = "";
  for (const { source, target } of shown)
    d += getSmoothStepPath({
      sourceX: source.x,
      sourceY: source.y,
      sourcePosition: Position.Bottom,
      targetX: target.x,
      targetY: target.y,
      targetPosition: Position.Top,
    })[0];
  return (
    <ViewportPortal>
      {/* Below the nodes (the viewport is a stacking context); overflow visible: the path is in flow coordinates. */}
      <svg
        aria-hidden="true"
        data-testid="tree-edges"
        data-edges={shown.length}
        style={{ position: "absolute", left: 0, top: 0, width: 1, height: 1, overflow: "visible", zIndex: -1, pointerEvents: "none" }}
      >
        <path className="react-flow__edge-path" d={d} />
      </svg>
    </ViewportPortal>
  );
});

const minimapSelector = (s: ReactFlowState) => ({
  tx: s.transform[0],
  ty: s.transform[1],
  zoom: s.transform[2],
  width: s.width,
  height: s.height,
  panZoom: s.panZoom,
  translateExtent: s.translateExtent,
});
const sameMinimap = (a: ReturnType<typeof minimapSelector>, b: ReturnType<typeof minimapSelector>) =>
  sameView(a, b) && a.panZoom === b.panZoom && a.translateExtent === b.translateExtent;

/**
 * The whole tree in a corner, each node a rectangle in its sender's colour, the
 * screen's part unmasked; drag it to pan, wheel to zoom.
 */
export function TreeMiniMap({
  nodes,
  colorOf,
  width = 140,
  height = 100,
}: {
  nodes: LaidNode[];
  colorOf: (node: LaidNode) => string;
  width?: number;
  height?: number;
}) {
  const store = useStoreApi();
  const flow = useReactFlow();
  const svg = useRef<SVGSVGElement>(null);
  const { tx, ty, zoom, width: flowWidth, height: flowHeight, panZoom, translateExtent } = useStore(minimapSelector, sameMinimap);

  // One path per colour, and the tree's bounds: rebuilt when the layout changes, not per frame.
  const { paths, bounds } = useMemo(() => {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (const n of nodes) {
      minX = Math.min(minX, n.x - NODE_W / 2);
      minY = Math.min(minY, n.y);
      maxX = Math.max(maxX, n.x + NODE_W / 2);
      maxY = Math.max(maxY, n.y + NODE_H);
    }
    if (!nodes.length) return { paths: [], bounds: null };
    const box: Bounds = { x: minX, y: minY, width: maxX - minX, height: maxY - minY };
    // At least a pixel of the minimap each way: 5,000 nodes side by side are narrower than that.
    const scale = Math.max(box.width / width, box.height / height);
    const w = Math.max(NODE_W, scale);
    const h = Math.max(NODE_H, scale);
    const byColor = new Map<string, string[]>();
    for (const n of nodes) {
      const color = colorOf(n);
      let parts = byColor.get(color);
      if (!parts) {
        parts = [];
        byColor.set(color, parts);
      }
      parts.push(`M${n.x - w / 2},${n.y}h${w}v${h}h${-w}z`);
    }
    return { paths: [...byColor].map(([color, parts]) => ({ color, d: parts.join("") })), bounds: box };
  }, [nodes, colorOf, width, height]);

  // As React Flow's MiniMap: the view box covers the tree and the screen, scaled to fit the panel.
  const view: Bounds = { x: -tx / zoom, y: -ty / zoom, width: flowWidth / zoom, height: flowHeight / zoom };
  const box = bounds ? union(bounds, view) : view;
  const viewScale = Math.max(box.width / width, box.height / height);
  const viewScaleRef = useRef(viewScale);
  viewScaleRef.current = viewScale;
  const offset = 5 * viewScale;
  const w = viewScale * width;
  const h = viewScale * height;
  const x = box.x - (w - box.width) / 2 - offset;
  const y = box.y - (h - box.height) / 2 - offset;

  const minimap = useRef<XYMinimapInstance | null>(null);
  const settings = { translateExtent, width: flowWidth, height: flowHeight, pannable: true, zoomable: true };
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  useEffect(() => {
    if (!svg.current || !panZoom) return;
    const instance = XYMinimap({
      domNode: svg.current,
      panZoom,
      getTransform: () => store.getState().transform,
      getViewScale: () => viewScaleRef.current,
    });
    instance.update(settingsRef.current);
    minimap.current = instance;
    return () => {
      instance.destroy();
      minimap.current = null;
    };
  }, [panZoom, store]);
  useEffect(() => {
    minimap.current?.update({ translateExtent, width: flowWidth, height: flowHeight, pannable: true, zoomable: true });
  }, [translateExtent, flowWidth, flowHeight]);

  return (
    <Panel position="top-right" className="react-flow__minimap" style={{ width, height }} data-testid="rf__minimap">
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: a pointer shortcut; keyboard users pan the canvas itself and fit it with the Controls. */}
      <svg
        ref={svg}
        width={width}
        height={height}
        viewBox={`${x} ${y} ${w + offset * 2} ${h + offset * 2}`}
        className="react-flow__minimap-svg"
        role="img"
        aria-label="Mini Map"
        // A click (not a drag, which pans) centres the view on that point of the tree, at the same zoom.
        onClick={(e) => {
          const matrix = e.currentTarget.getScreenCTM();
          if (!matrix) return;
          const point = new DOMPoint(e.clientX, e.clientY).matrixTransform(matrix.inverse());
          void flow.setCenter(point.x, point.y, { zoom: store.getState().transform[2], duration: 200 });
        }}
      >
        {paths.map((p) => (
          <path key={p.color} d={p.d} style={{ fill: p.color }} shapeRendering="crispEdges" />
        ))}
        <path
          className="react-flow__minimap-mask"
          d={`M${x - offset},${y - offset}h${w + offset * 4}v${h + offset * 4}h${-w - offset * 4}z M${view.x},${view.y}h${view.width}v${view.height}h${-view.width}z`}
          fillRule="evenodd"
          pointerEvents="none"
        />
      </svg>
    </Panel>
  );
}

function union(a: Bounds, b: Bounds): Bounds {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

/** Below this zoom a node's text is too small to read: the tree says what it holds instead. */
export const SUMMARY_ZOOM = 0.45;
const zoomSelector = (s: ReactFlowState) => s.transform[2];

/**
 * What a tree too small to read holds (a big tree fitted to the screen): how many
 * messages from whom, where it branches, how deep it goes, in type that is read at
 * any zoom. Hidden again once the nodes are readable.
 */
export function TreeSummary({ nodes, edges }: { nodes: LaidNode[]; edges: LaidEdge[] }) {
  const zoom = useStore(zoomSelector);
  const facts = useMemo(() => {
    const by = { user: 0, agent: 0, operator: 0 } as Record<string, number>;
    for (const n of nodes) by[n.member.senderKind] = (by[n.member.senderKind] ?? 0) + 1;
    const children = new Map<number, number>();
    for (const e of edges) children.set(e.source, (children.get(e.source) ?? 0) + 1);
    const branchPoints = [...children.values()].filter((c) => c > 1).length;
    const levels = new Set(nodes.map((n) => n.y)).size;
    return { by, branchPoints, levels };
  }, [nodes, edges]);
  if (zoom >= SUMMARY_ZOOM || nodes.length === 0) return null;
  const plural = (n: number, word: string) => `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;
  return (
    <Panel position="bottom-right" className="tree-summary" data-testid="tree-summary">
      <strong>{plural(nodes.length, "message")}</strong>: {plural(facts.by.user ?? 0, "user message")}, {facts.by.agent ?? 0} from the bot,{" "}
      {facts.by.operator ?? 0} from operators · {plural(facts.branchPoints, "branch point")} · {plural(facts.levels, "level")} deep. Zoom
      in, or click the map, to read the messages.
    </Panel>
  );
}
