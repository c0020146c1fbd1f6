"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { useOpenHandoffs } from "../_lib/use-handoffs";

/**
 * On every page (in the nav): how many conversations wait for a human, and a
 * browser notification for each new one. Notification permission is asked only
 * from the button (browsers require a user gesture).
 */
export function HandoffBadge() {
  const { data } = useOpenHandoffs();
  const waiting = useMemo(() => (data?.handoffs ?? []).filter((h) => h.state === "waiting"), [data]);
  const seen = useRef<Set<number> | null>(null);
  const [permission, setPermission] = useState<NotificationPermission | "unsupported">("default");

  useEffect(() => {
    setPermission(typeof Notification === "undefined" ? "unsupported" : Notification.permission);
  }, []);

  useEffect(() => {
    if (!data) return;
    const ids = new Set(waiting.map((h) => h.conversationId));
    // The first load is not news: only handoffs that appear afterwards notify.
    if (seen.current && permission === "granted") {
      for (const h of waiting) {
        if (seen.current.has(h.conversationId)) continue;
        const notification = new Notification("Needs a human", {
          body: `${h.title ?? `Chat ${h.platformChatId}`}: ${h.reason ?? "no reason given"}`,
          tag: `handoff-${h.conversationId}`,
        });
        notification.onclick = () => window.open(`/conversations/${h.conversationId}`, "_self");
      }
    }
    seen.current = ids;
  }, [data, waiting, permission]);

  return (
    <div style={{ padding: "6px 10px" }}>
      {waiting.length > 0 && (
        <a href="/" className="badge err" data-testid="handoff-badge" title="Conversations waiting for a human">
          {waiting.length} need{waiting.length === 1 ? "s" : ""} a human
        </a>
      )}
      {permission === "default" && (
        <button
          type="button"
          onClick={() => void Notification.requestPermission().then(setPermission)}
          style={{ marginTop: 4, fontSize: 12 }}
        >
          Notify me of handoffs
        </button>
      )}
    </div>
  );
}
