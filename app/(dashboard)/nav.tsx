"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { HandoffBadge } from "./handoff/handoff-badge";

const links = [
  { href: "/", label: "Conversations" },
  { href: "/envelopes", label: "Envelopes" },
  { href: "/forks", label: "Forks" },
  { href: "/search", label: "Search" },
  { href: "/saved-replies", label: "Saved replies" },
  { href: "/simulator", label: "Simulator" },
  { href: "/settings", label: "Settings" },
];

export function Nav({ operator }: { operator: string }) {
  const pathname = usePathname();
  const router = useRouter();
  async function signOut() {
    await fetch("/api/auth/logout", { method: "POST" });
    router.replace("/login");
    router.refresh();
  }
  return (
    <nav className="nav" aria-label="Main">
      <div className="brand">Switchboard</div>
      {links.map((l) => {
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
        Signed in as {operator} · <kbd title="Keyboard shortcuts">?</kbd>
      </div>
      <button type="button" onClick={signOut} style={{ margin: "6px 10px" }}>
        Sign out
      </button>
    </nav>
  );
}
