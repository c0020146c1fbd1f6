"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { z } from "zod";
import type { botListResponse } from "@/lib/api/bots";
import type { invitationResponse } from "@/lib/api/operators";
import { api } from "../_lib/api";
import { type OperatorsInfo, useOperators } from "../_lib/sender";

type Role = "admin" | "agent";
type Operator = OperatorsInfo["operators"][number];
type Invitation = z.output<typeof invitationResponse>;
type Bot = z.output<typeof botListResponse>["bots"][number];

/** Operators → the team: invite (a link to pass on), roles, disable, remove, open invitations. */
export function OperatorsConsole() {
  const operators = useOperators();
  const data = operators.data;
  const bots = useQuery({ queryKey: ["bots"], queryFn: () => api<z.output<typeof botListResponse>>("/bots") });
  return (
    <>
      <h1>Operators</h1>
      <InviteForm openInvitationIds={data ? data.invitations.map((i) => i.id) : null} />
      <section className="panel" aria-label="Team" style={{ marginBottom: 16 }}>
        <h2 style={{ marginTop: 0 }}>Team</h2>
        {operators.isError && (
          <p className="error" role="alert">
            {operators.error.message}
          </p>
        )}
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Role</th>
              <th>Status</th>
              <th>Bots</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {data?.operators.map((o) => (
              <OperatorRow key={o.id} operator={o} isMe={o.id === data.me} bots={bots.data?.bots ?? []} />
            ))}
          </tbody>
        </table>
        <p className="muted">
          Admins change settings, use the simulator and manage operators; agents handle conversations. Disabling or removing someone ends
          their sessions at once; their messages keep their name. There is always at least one active admin. An agent limited to some bots
          sees only those bots' conversations, from their next click on; admins always see every bot.
        </p>
      </section>
      {data && data.invitations.length > 0 && <OpenInvitations invitations={data.invitations} />}
    </>
  );
}

function useOperatorChange() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, method, body }: { id: number; method: "PATCH" | "DELETE"; body?: unknown }) =>
      api(`/operators/${id}`, { method, body }),
    onSettled: () => void client.invalidateQueries({ queryKey: ["operators"] }),
  });
}

function OperatorRow({ operator, isMe, bots }: { operator: Operator; isMe: boolean; bots: Bot[] }) {
  const change = useOperatorChange();
  const label = operator.displayName ? `${operator.displayName} (${operator.name})` : operator.name;
  const removed = operator.status === "removed";
  return (
    <tr aria-label={`Operator ${operator.name}`}>
      <td>
        {label}
        {isMe && <span className="muted"> · you</span>}
      </td>
      <td>
        {removed ? (
          operator.role
        ) : (
          <select
            aria-label={`Role of ${operator.name}`}
            value={operator.role}
            disabled={change.isPending}
            onChange={(e) => change.mutate({ id: operator.id, method: "PATCH", body: { role: e.target.value as Role } })}
          >
            <option value="admin">admin</option>
            <option value="agent">agent</option>
          </select>
        )}
      </td>
      <td>{operator.status}</td>
      <td>
        {operator.role === "admin" || removed ? (
          <span className="muted">all bots</span>
        ) : (
          <BotPicker
            operator={operator}
            bots={bots}
            disabled={change.isPending}
            onChange={(botIds) => change.mutate({ id: operator.id, method: "PATCH", body: { botIds } })}
          />
        )}
      </td>
      <td>
        {!removed && (
          <span className="row">
            <button
              type="button"
              disabled={change.isPending}
              onClick={() => {
                const disable = operator.status === "active";
                if (disable && !window.confirm(`Disable ${operator.name}? They are signed out now and cannot sign in until enabled again.`))
                  return;
                change.mutate({ id: operator.id, method: "PATCH", body: { disabled: disable } });
              }}
            >
              {operator.status === "active" ? "Disable" : "Enable"}
            </button>
            <button
              type="button"
              className="danger"
              disabled={change.isPending}
              onClick={() => {
                if (window.confirm(`Remove ${operator.name}? Their sessions end now; their messages keep their name.`))
                  change.mutate({ id: operator.id, method: "DELETE" });
              }}
            >
              Remove
            </button>
          </span>
        )}
        {change.isError && (
          <span className="error" role="alert">
            {change.error.message}
          </span>
        )}
      </td>
    </tr>
  );
}

/**
 * The bots an agent is limited to: "All bots" (no limit, the default) or a set of
 * bots. Unticking "All bots" keeps every bot ticked, for the admin to untick some.
 */
function BotPicker({
  operator,
  bots,
  disabled,
  onChange,
}: {
  operator: Operator;
  bots: Bot[];
  disabled: boolean;
  onChange: (botIds: number[] | null) => void;
}) {
  const limit = operator.botIds;
  const names =
    limit === null
      ? "all bots"
      : limit.length === 0
        ? "no bots"
        : limit.map((id) => bots.find((b) => b.id === id)?.name ?? `#${id}`).join(", ");
  const toggle = (id: number, on: boolean) => {
    const current = limit ?? bots.map((b) => b.id);
    onChange(on ? [...current, id] : current.filter((b) => b !== id));
  };
  return (
    <details>
      <summary aria-label={`Bots of ${operator.name}`}>{names}</summary>
      <fieldset disabled={disabled} style={{ border: "none", padding: 0, margin: 0 }}>
        <label style={{ display: "block" }}>
          <input type="checkbox" checked={limit === null} onChange={(e) => onChange(e.target.checked ? null : bots.map((b) => b.id))} /> All
          bots
        </label>
        {bots.map((bot) => (
          <label key={bot.id} style={{ display: "block" }}>
            <input type="checkbox" checked={limit === null || limit.includes(bot.id)} onChange={(e) => toggle(bot.id, e.target.checked)} />{" "}
            {bot.name} <span className="muted">({bot.platform})</span>
          </label>
        ))}
      </fieldset>
    </details>
  );
}

/**
 * Creates a one-time link; it is shown once, here, for the admin to pass on (no email is sent).
 * Once the invitation is withdrawn (or used), the link is no longer shown: it works no more.
 */
function InviteForm({ openInvitationIds }: { openInvitationIds: number[] | null }) {
  const client = useQueryClient();
  const [role, setRole] = useState<Role>("agent");
  const [copied, setCopied] = useState(false);
  const invite = useMutation({
    mutationFn: () => api<Invitation>("/operators", { method: "POST", body: { role } }),
    onSuccess: () => {
      setCopied(false);
      void client.invalidateQueries({ queryKey: ["operators"] });
    },
  });
  const closed = Boolean(invite.data && openInvitationIds && !openInvitationIds.includes(invite.data.invitation.id));
  const link = invite.data && !closed ? `${window.location.origin}${invite.data.path}` : null;
  return (
    <form
      className="panel"
      aria-label="Invite an operator"
      style={{ marginBottom: 16 }}
      onSubmit={(e) => {
        e.preventDefault();
        invite.mutate();
      }}
    >
      <h2 style={{ marginTop: 0 }}>Invite an operator</h2>
      <p className="row">
        <label>
          Role{" "}
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            <option value="agent">agent: conversations only</option>
            <option value="admin">admin: settings and operators too</option>
          </select>
        </label>
        <button className="primary" type="submit" disabled={invite.isPending}>
          Create invitation link
        </button>
      </p>
      {invite.isError && (
        <p className="error" role="alert">
          {invite.error.message}
        </p>
      )}
      {closed && (
        <p className="muted" role="status">
          That invitation is closed (withdrawn or used): its link no longer works.
        </p>
      )}
      {link && invite.data && (
        <div role="status">
          <label>
            Invitation link (works once, until {new Date(invite.data.invitation.expiresAt).toLocaleString()})
            <input readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
          </label>
          <p className="row">
            <button
              type="button"
              onClick={() =>
                navigator.clipboard?.writeText(link).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              Copy link
            </button>
            {copied && <span className="muted">Copied.</span>}
            <span className="muted">Pass it on yourself; it is not shown again. Whoever opens it chooses a name and password.</span>
          </p>
        </div>
      )}
    </form>
  );
}

function OpenInvitations({ invitations }: { invitations: OperatorsInfo["invitations"] }) {
  const client = useQueryClient();
  const withdraw = useMutation({
    mutationFn: (id: number) => api(`/operators/invitations/${id}`, { method: "DELETE" }),
    onSettled: () => void client.invalidateQueries({ queryKey: ["operators"] }),
  });
  return (
    <section className="panel" aria-label="Open invitations">
      <h2 style={{ marginTop: 0 }}>Open invitations</h2>
      <ul style={{ listStyle: "none", padding: 0, margin: 0 }}>
        {invitations.map((i) => (
          <li key={i.id} className="row" style={{ marginBottom: 6 }}>
            <span>
              {i.role}, by {i.createdBy}, until {new Date(i.expiresAt).toLocaleString()}
            </span>
            <button type="button" onClick={() => withdraw.mutate(i.id)} disabled={withdraw.isPending}>
              Withdraw
            </button>
          </li>
        ))}
      </ul>
      {withdraw.isError && (
        <p className="error" role="alert">
          {withdraw.error.message}
        </p>
      )}
    </section>
  );
}
