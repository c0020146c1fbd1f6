"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { api } from "../_lib/api";
import { useOperators } from "../_lib/sender";

/**
 * The signed-in operator's display name: what the console shows for their messages
 * and envelopes (PATCH /operators/{id}). Never sent to the model.
 */
export function AccountForm() {
  const client = useQueryClient();
  const router = useRouter();
  const operators = useOperators();
  const me = operators.data?.operators.find((o) => o.id === operators.data?.me);
  const [draft, setDraft] = useState<string | null>(null);
  useEffect(() => {
    if (me && draft === null) setDraft(me.displayName ?? "");
  }, [me, draft]);
  const save = useMutation({
    mutationFn: (displayName: string) =>
      api<{ operator: { displayName: string | null } }>(`/operators/${me!.id}`, { method: "PATCH", body: { displayName } }),
    onSuccess: (data) => {
      setDraft(data.operator.displayName ?? "");
      void client.invalidateQueries({ queryKey: ["operators"] });
      // The sidebar's "Signed in as" is rendered by the layout on the server.
      router.refresh();
    },
  });
  // The API token has no account: nothing to edit.
  if (!me) return null;
  return (
    <form
      className="panel"
      style={{ marginBottom: 16 }}
      aria-label="Your account"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(draft ?? "");
      }}
    >
      <h2 style={{ marginTop: 0 }}>Your account</h2>
      <label>
        Display name
        <input
          value={draft ?? ""}
          maxLength={64}
          placeholder={me.name}
          onChange={(e) => {
            setDraft(e.target.value);
            save.reset();
          }}
        />
      </label>
      <p className="muted">
        Shown for your messages and envelopes instead of your sign-in name ({me.name}); blank shows the sign-in name. The model never sees
        it: your messages reach it marked as sent by a human operator.
      </p>
      <p className="row">
        <button className="primary" type="submit" disabled={save.isPending}>
          Save display name
        </button>
        {save.isSuccess && (
          <span className="muted" role="status">
            Saved.
          </span>
        )}
        {save.isError && (
          <span className="error" role="alert">
            {save.error.message}
          </span>
        )}
      </p>
    </form>
  );
}
