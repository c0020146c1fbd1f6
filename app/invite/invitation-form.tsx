"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";

/** What the server says of the link, asked before the form shows (POST /api/auth/invitation/check). */
type LinkState = { state: "checking" } | { state: "open" } | { state: "refused"; message: string };

/** Asks whether the link still works: a used or withdrawn link says so at once, with no form to fill in first. */
async function checkLink(token: string): Promise<LinkState> {
  const response = await fetch("/api/auth/invitation/check", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  }).catch(() => null);
  // The server did not answer: the form shows, and sending it says what went wrong.
  if (!response || response.ok || response.status >= 500) return { state: "open" };
  const body = await response.json().catch(() => ({}));
  return { state: "refused", message: body?.error?.message ?? `This link does not work (${response.status}).` };
}

/** Accepts the invitation in the URL's fragment (POST /api/auth/invitation) and opens the console signed in. */
export function InvitationForm() {
  const router = useRouter();
  const [token, setToken] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [link, setLink] = useState<LinkState>({ state: "checking" });
  useEffect(() => setToken(window.location.hash.slice(1)), []);
  useEffect(() => {
    if (token) void checkLink(token).then(setLink);
  }, [token]);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const response = await fetch("/api/auth/invitation", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token, name: form.get("name"), displayName: form.get("displayName"), password: form.get("password") }),
    }).catch(() => null);
    setBusy(false);
    if (!response) return setError("The server did not answer.");
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      const issue = body?.error?.details?.[0];
      return setError(issue ? `${issue.path?.join(".") ?? ""}: ${issue.message}` : (body?.error?.message ?? `Failed (${response.status})`));
    }
    // The fragment is no use any more; keep it out of the history.
    window.history.replaceState(null, "", "/invite");
    router.replace("/");
    router.refresh();
  }

  if (token === "")
    return (
      <p className="panel error" role="alert">
        This link has no invitation in it. Open the whole link the admin gave you.
      </p>
    );
  if (token === null || link.state === "checking") return <p className="muted">Checking the invitation…</p>;
  if (link.state === "refused")
    return (
      <p className="panel error" role="alert">
        {link.message.replace(/^./, (c) => c.toUpperCase())}
      </p>
    );
  // The intro belongs to the form: a used or withdrawn link shows only its refusal.
  return (
    <form onSubmit={onSubmit} className="panel">
      <p className="muted" style={{ marginTop: 0 }}>
        An admin invited you. Choose the name you sign in with and a password; the link works once.
      </p>
      <label htmlFor="name">User name (to sign in; letters, digits, _ . -)</label>
      {/* biome-ignore lint/a11y/noAutofocus: the page exists for this form. */}
      <input id="name" name="name" autoComplete="username" pattern="[a-zA-Z0-9_.\-]+" maxLength={64} required autoFocus />
      <label htmlFor="displayName">Display name (shown on your messages; optional)</label>
      <input id="displayName" name="displayName" maxLength={64} />
      <label htmlFor="password">Password (at least 10 characters)</label>
      <input id="password" name="password" type="password" autoComplete="new-password" minLength={10} required />
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <p>
        <button className="primary" type="submit" disabled={busy || !token}>
          {busy ? "…" : "Join and sign in"}
        </button>
      </p>
    </form>
  );
}
