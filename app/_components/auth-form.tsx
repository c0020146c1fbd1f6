"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

/** Sign-in and first-run setup share one form: name, password, submit. */
export function AuthForm({
  endpoint,
  submitLabel,
  then,
  askSetupCode = false,
}: {
  endpoint: string;
  submitLabel: string;
  then: string;
  askSetupCode?: boolean;
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: form.get("name"), password: form.get("password"), ...(askSetupCode ? { code: form.get("code") } : {}) }),
    }).catch(() => null);
    setBusy(false);
    if (!response) return setError("The server did not answer.");
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      const issue = body?.error?.details?.[0]?.message;
      return setError(issue ?? body?.error?.message ?? `Failed (${response.status})`);
    }
    router.replace(then);
    router.refresh();
  }

  return (
    <form onSubmit={onSubmit} className="panel">
      {askSetupCode && (
        <>
          <label htmlFor="code">Setup code (from the server log)</label>
          {/* biome-ignore lint/a11y/noAutofocus: the page exists for this one field. */}
          <input id="code" name="code" autoComplete="off" spellCheck={false} required autoFocus />
        </>
      )}
      <label htmlFor="name">User name</label>
      {/* biome-ignore lint/a11y/noAutofocus: the page exists for this form. */}
      <input id="name" name="name" autoComplete="username" required autoFocus={!askSetupCode} />
      <label htmlFor="password">Password</label>
      {/* Setup makes the password (browsers offer to generate one); sign-in fills in a stored one. */}
      <input id="password" name="password" type="password" autoComplete={askSetupCode ? "new-password" : "current-password"} required />
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <p>
        <button className="primary" type="submit" disabled={busy}>
          {busy ? "…" : submitLabel}
        </button>
      </p>
    </form>
  );
}
