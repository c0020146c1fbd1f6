"use client";

import { useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { api } from "./api";
import { useOperators } from "./sender";
import { useInboxChoice, useInboxList } from "./use-inbox";

/** The shortcuts, as the `?` list shows them. */
export const SHORTCUTS: [string, string][] = [
  ["j", "Next conversation"],
  ["k", "Previous conversation"],
  ["Enter", "Open the selected conversation (in the list)"],
  ["r", "Reply: focus the message box"],
  ["e", "Resolve the conversation"],
  ["a", "Assign the conversation to me"],
  ["/", "Open search"],
  ["?", "Show this list"],
];

/** Typing in a field (or holding a modifier) is never a shortcut. */
function typing(event: KeyboardEvent): boolean {
  if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return true;
  const target = event.target as HTMLElement | null;
  if (!target) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/**
 * Keyboard shortcuts for the frequent moves, for every dashboard page: j/k walk the
 * current inbox view (the list's rows, or from one conversation to the next), r,
 * e and a act on the open conversation, / opens search, ? lists them all.
 */
export function Shortcuts() {
  const router = useRouter();
  const pathname = usePathname();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const { view, sort } = useInboxChoice();
  const conversationId = /^\/conversations\/(\d+)/.exec(pathname)?.[1];
  const current = conversationId ? Number(conversationId) : null;
  // The list the conversation page steps through: the same query as the inbox's (no search).
  const list = useInboxList(view, sort);
  const me = useOperators().data?.me ?? null;
  const lastIndex = useRef(0);
  const ids = (list.data?.conversations ?? []).map((c) => c.id);
  if (current !== null && ids.includes(current)) lastIndex.current = ids.indexOf(current);

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);

  useEffect(() => {
    const change = (body: Record<string, unknown>) => {
      if (current === null) return;
      void api(`/conversations/${current}`, { method: "PATCH", body }).finally(() => {
        void client.invalidateQueries({ queryKey: ["conversation", current] });
        void client.invalidateQueries({ queryKey: ["conversations"] });
      });
    };
    const step = (delta: 1 | -1) => {
      if (current === null) {
        // The list page: move the focus along its rows.
        const rows = [...document.querySelectorAll<HTMLElement>("tr[data-conversation-id]")];
        if (rows.length === 0) return;
        const at = rows.indexOf(document.activeElement as HTMLElement);
        rows[at < 0 ? (delta === 1 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, at + delta))]!.focus();
        return;
      }
      if (ids.length === 0) return;
      const at = ids.indexOf(current);
      // Gone from the view (just resolved, say): the one now at its place comes next.
      const next = at < 0 ? (delta === 1 ? lastIndex.current : lastIndex.current - 1) : at + delta;
      const id = ids[Math.min(ids.length - 1, Math.max(0, next))];
      if (id !== undefined && id !== current) router.push(`/conversations/${id}`);
    };
    const onKey = (event: KeyboardEvent) => {
      if (typing(event)) return;
      const key = event.key;
      if (key === "?") setOpen((o) => !o);
      else if (key === "j") step(1);
      else if (key === "k") step(-1);
      else if (key === "/") router.push("/search");
      else if (key === "r" && current !== null) document.getElementById("reply-text")?.focus();
      else if (key === "e" && current !== null) change({ status: "resolved" });
      else if (key === "a" && current !== null && me !== null) change({ assigneeId: me });
      else return;
      event.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [current, ids, me, router, client]);

  return (
    <dialog
      ref={dialog}
      className="shortcuts-dialog"
      aria-label="Keyboard shortcuts"
      data-testid="shortcuts"
      onClose={() => setOpen(false)}
    >
      <h2 style={{ marginTop: 0 }}>Keyboard shortcuts</h2>
      <table>
        <tbody>
          {SHORTCUTS.map(([key, what]) => (
            <tr key={key}>
              <td>
                <kbd>{key}</kbd>
              </td>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">Never while typing in a field. Esc closes.</p>
      <button type="button" onClick={() => setOpen(false)}>
        Close
      </button>
    </dialog>
  );
}
