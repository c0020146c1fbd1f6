"use client";

import { useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import type { labelView } from "@/lib/api/labels";
import { api } from "./api";

export type Label = z.output<typeof labelView>;

/** The priorities, lowest first, as PATCH /conversations/{id} takes them. */
export const PRIORITIES = ["none", "low", "medium", "high", "urgent"] as const;
export type Priority = (typeof PRIORITIES)[number];

/** Every label (GET /labels); conversation events refetch it (a label renamed, deleted). */
export function useLabels() {
  return useQuery({ queryKey: ["labels"], queryFn: () => api<{ labels: Label[] }>("/labels") });
}

/** A label as a colored chip; `color` absent (a name only) shows the default gray. */
export function LabelChip({ name, color }: { name: string; color?: string }) {
  return (
    <span className="badge label-chip" data-testid="label-chip" style={{ borderLeft: `4px solid ${color ?? "#6b7280"}` }}>
      {name}
    </span>
  );
}

/** The list's priority marker: nothing for "none". */
export function PriorityMarker({ priority }: { priority: string }) {
  if (priority === "none") return null;
  return (
    <span className={`badge priority priority-${priority}`} data-testid="priority-marker" title={`priority: ${priority}`}>
      {priority === "urgent" ? "‼ urgent" : priority}
    </span>
  );
}
