"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { z } from "zod";
import type { sessionsResponse } from "@/lib/api/operators";
import { api } from "../_lib/api";
import { AccountForm } from "./account-form";

type Sessions = z.output<typeof sessionsResponse>;

/** Settings → Your account: display name, password, where you are signed in. Every operator has it. */
export function YourAccount() {
  return (
    <>
      <AccountForm />
      <div className="grid2" style={{ marginBottom: 16 }}>
        <PasswordForm />
        <SessionList />
      </div>
    </>
  );
}

/** POST /account/password: the current password is required; the other sessions end. */
function PasswordForm() {
  const client = useQueryClient();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const change = useMutation({
    mutationFn: () => api("/account/password", { method: "POST", body: { currentPassword: current, newPassword: next } }),
    onSuccess: () => {
      setCurrent("");
      setNext("");
      void client.invalidateQueries({ queryKey: ["account-sessions"] });
    },
  });
  return (
    <form
      className="panel"
      aria-label="Change your password"
      onSubmit={(e) => {
        e.preventDefault();
        change.mutate();
      }}
    >
      <h2 style={{ marginTop: 0 }}>Password</h2>
      <label>
        Current password
        <input type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} required />
      </label>
      <label>
        New password
        <input type="password" autoComplete="new-password" minLength={10} value={next} onChange={(e) => setNext(e.target.value)} required />
      </label>
      <p className="muted">At least 10 characters. Your other sessions end; this one stays signed in.</p>
      <p className="row">
        <button className="primary" type="submit" disabled={change.isPending}>
          Change password
        </button>
        {change.isSuccess && (
          <span className="muted" role="status">
            Password changed.
          </span>
        )}
        {change.isError && (
          <span className="error" role="alert">
            {change.error.message}
          </span>
        )}
      </p>
    </form>
  );
}

/** GET /account/sessions and DELETE /account/sessions/{id}: ending the current one signs out here. */
function SessionList() {
  const client = useQueryClient();
  const sessions = useQuery({ queryKey: ["account-sessions"], queryFn: () => api<Sessions>("/account/sessions") });
  const end = useMutation({
    mutationFn: (session: Sessions["sessions"][number]) =>
      api(`/account/sessions/${session.id}`, { method: "DELETE" }).then(() => session.current),
    onSuccess: (wasCurrent) => {
      if (wasCurrent) window.location.href = "/login";
      else void client.invalidateQueries({ queryKey: ["account-sessions"] });
    },
  });
  return (
    <section className="panel" aria-label="Your sessions">
      <h2 style={{ marginTop: 0 }}>Where you are signed in</h2>
      {sessions.isError && (
        <p className="error" role="alert">
          {sessions.error.message}
        </p>
      )}
      <ul style={{ listStyle: "none", padding: 0, margin: 0 }}>
        {sessions.data?.sessions.map((s) => (
          <li key={s.id} className="row" style={{ justifyContent: "space-between", marginBottom: 6 }}>
            <span>
              {browserOf(s.userAgent)} · since {new Date(s.createdAt).toLocaleString()}
              {s.current && <strong> (this browser)</strong>}
            </span>
            <button type="button" onClick={() => end.mutate(s)} disabled={end.isPending}>
              {s.current ? "Sign out here" : "End session"}
            </button>
          </li>
        ))}
      </ul>
      {end.isError && (
        <p className="error" role="alert">
          {end.error.message}
        </p>
      )}
    </section>
  );
}

/** A short name for a User-Agent string: enough to tell one's own browsers apart. */
function browserOf(userAgent: string | null): string {
  if (!userAgent) return "Unknown browser";
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(userAgent)
        ? "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : userAgent.split(/[\s/]/)[0];
  const system = /Windows/.test(userAgent)
    ? "Windows"
    : /Android/.test(userAgent)
      ? "Android"
      : /iPhone|iPad/.test(userAgent)
        ? "iOS"
        : /Mac OS X/.test(userAgent)
          ? "macOS"
          : /Linux/.test(userAgent)
            ? "Linux"
            : null;
  return system ? `${browser} on ${system}` : browser;
}
