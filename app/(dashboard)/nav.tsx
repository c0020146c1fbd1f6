"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { HandoffBadge } from "./handoff/handoff-badge";

/** `admin` links only for admins; an agent's pages are the conversations and their own account (Settings). */
const links = [
  { href: "/", label: "Conversations" },
  { href: "/envelopes", label: "Envelopes" },
  { href: "/forks", label: "Forks" },
  { href: "/search", label: "Search" },
  { href: "/saved-replies", label: "Saved replies" },
  { href: "/labels", label: "Labels" },
  { href: "/reports", label: "Reports" },
  { href: "/usage", label: "Usage" },
  { href: "/replays", label: "Replays" },
  { href: "/bots", label: "Bots", admin: true },
  { href: "/simulator", label: "Simulator", admin: true },
  { href: "/operators", label: "Operators", admin: true },
  { href: "/settings", label: "Settings" },
];

export function Nav({ operator, role }: { operator: string; role: "admin" | "agent" }) {
  const pathname = usePathname();
  const router = useRouter();
  // On a phone the links fold under a Menu button (the page gets the screen); opening a page folds them again.
  const [open, setOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new path is the trigger.
  useEffect(() => setOpen(false), [pathname]);
  async function signOut() {
    await fetch("/api/auth/logout", { method: "POST" });
    router.replace("/login");
    router.refresh();
  }
  return (
    <nav className={`nav${open ? " open" : ""}`} aria-label="Main">
      <div className="nav-bar">
        <div className="brand">Switchboard</div>
        <button type="button" className="nav-toggle" aria-expanded={open} aria-controls="nav-links" onClick={() => setOpen((o) => !o)}>
          Menu
        </button>
      </div>
      <div className="nav-links" id="nav-links">
        {links
          .filter((l) => !l.admin || role === "admin")
          .map((l) => {
            const current = l.href === "/" ? pathname === "/" || pathname.startsWith("/conversations") : pathname.startsWith(l.href);
            return (
              <Link key={l.href} href={l.href} aria-current={current ? "page" : undefined}>
                {l.label}
              </Link>
            );
          })}
        <HandoffBadge />
        <div className="spacer" />
        <div className="who">
          Signed in as {operator} ({role}) · <kbd title="Keyboard shortcuts">?</kbd>
        </div>
        <button type="button" onClick={signOut} style={{ margin: "6px 10px" }}>
          Sign out
        </button>
      </div>
    </nav>
  );
}
