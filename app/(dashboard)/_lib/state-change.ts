import type { StateChange } from "./types";

/**
 * The line the timeline shows for a change, e.g. "Ana resolved this", "Ana assigned
 * this to Bo", "Ana snoozed this until 14:00", "Ana set the priority to urgent",
 * "Ana labelled this “billing”, removed the label “vip”". `name` turns a sign-in name into the
 * name people know; `time` formats an ISO date.
 */
export function describeStateChange(
  change: Pick<StateChange, "action" | "by" | "assignee" | "snoozedUntil" | "reason"> &
    Partial<Pick<StateChange, "priority" | "labelsAdded" | "labelsRemoved">>,
  format: { name: (signInName: string) => string; time: (iso: string) => string },
): string {
  const who = change.by && change.by !== "user" && change.by !== "timer" ? format.name(change.by) : null;
  switch (change.action) {
    case "resolve":
      return `${who ?? "Someone"} resolved this`;
    case "reopen":
      return change.by === "user" ? "Reopened: the user wrote" : `${who ?? "Someone"} reopened this`;
    case "snooze":
      return `${who ?? "Someone"} snoozed this ${change.snoozedUntil ? `until ${format.time(change.snoozedUntil)}` : "until the user writes"}`;
    case "wake":
      return change.by === "timer" ? "Woke up: the snooze ended" : "Woke up: the user wrote";
    case "assign":
      return who && who === change.assignee
        ? `${who} took this`
        : `${who ?? "Someone"} assigned this to ${change.assignee ?? "an operator"}`;
    case "unassign":
      return `${who ?? "Someone"} unassigned this`;
    case "priority":
      return `${who ?? "Someone"} set the priority to ${change.priority ?? "none"}`;
    case "label": {
      const added = change.labelsAdded ?? [];
      const removed = change.labelsRemoved ?? [];
      // Names quoted: a label's name may hold a comma or read like a word of the sentence.
      const names = (list: string[]) => list.map((name) => `“${name}”`).join(", ");
      const parts = [
        added.length ? `labelled this ${names(added)}` : "",
        removed.length ? `removed the label${removed.length > 1 ? "s" : ""} ${names(removed)}` : "",
      ];
      return `${who ?? "Someone"} ${parts.filter(Boolean).join(", ") || "changed the labels"}`;
    }
    case "request":
      return `Handed to a human${change.reason ? `: ${change.reason}` : ""}`;
    case "take":
      return `${who ?? "An operator"} took over from the agent`;
    case "release":
      return `${who ?? "An operator"} handed this back to the agent`;
  }
}
