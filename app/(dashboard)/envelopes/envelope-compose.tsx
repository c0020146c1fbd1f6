"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { sendEnvelopeSchema } from "@/lib/envelope/send-schema";
import { ApiError, api } from "../_lib/api";
import type { Envelope } from "../_lib/types";

type Field = "from" | "to" | "text" | "replyTo" | "deliverAt";
const FIELDS: { name: Field; label: string; placeholder?: string; multiline?: boolean }[] = [
  { name: "from", label: "From" },
  { name: "to", label: "To", placeholder: "agent:main, channel:telegram:42, operator:alice" },
  { name: "text", label: "Text", multiline: true },
  { name: "replyTo", label: "Reply to envelope #", placeholder: "optional" },
  { name: "deliverAt", label: "Deliver at", placeholder: "optional: +30m, +2h, 2026-12-01T09:00:00Z" },
];

/** Field → first message, from zod issues (the browser's check) or the API's error details. */
function fieldErrors(issues: { path?: PropertyKey[]; message: string }[]): Partial<Record<Field | "form", string>> {
  const errors: Partial<Record<Field | "form", string>> = {};
  for (const issue of issues) {
    const key = (FIELDS.some((f) => f.name === issue.path?.[0]) ? issue.path![0] : "form") as Field | "form";
    errors[key] ??= issue.message;
  }
  return errors;
}

/**
 * Sends an envelope as the API and the CLI do, validated in the browser with
 * the same schema (lib/envelope/send-schema), field by field.
 */
export function EnvelopeCompose({ operator }: { operator: string }) {
  const client = useQueryClient();
  const [values, setValues] = useState<Record<Field, string>>({
    from: `operator:${operator}`,
    to: "",
    text: "",
    replyTo: "",
    deliverAt: "",
  });
  const [errors, setErrors] = useState<Partial<Record<Field | "form", string>>>({});
  const send = useMutation({
    mutationFn: (body: unknown) => api<{ envelope: Envelope }>("/envelopes", { method: "POST", body }),
    onSuccess: () => {
      setValues((v) => ({ ...v, text: "", replyTo: "", deliverAt: "" }));
      void client.invalidateQueries({ queryKey: ["envelopes"] });
    },
    onError: (error) => {
      const details =
        error instanceof ApiError && Array.isArray(error.details) ? (error.details as { path?: PropertyKey[]; message: string }[]) : [];
      setErrors(details.length ? fieldErrors(details) : { form: error.message });
    },
  });

  function submit(event: React.FormEvent) {
    event.preventDefault();
    const input = {
      from: values.from.trim(),
      to: values.to.trim(),
      text: values.text,
      ...(values.replyTo.trim() ? { replyTo: Number(values.replyTo.trim()) } : {}),
      ...(values.deliverAt.trim() ? { deliverAt: values.deliverAt.trim() } : {}),
    };
    const parsed = sendEnvelopeSchema.safeParse(input);
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error.issues));
      return;
    }
    setErrors({});
    send.mutate(parsed.data);
  }

  return (
    <details className="panel compose" open={false}>
      <summary>Compose an envelope</summary>
      <form onSubmit={submit} noValidate aria-label="Compose an envelope">
        <div className="compose-grid">
          {FIELDS.map((f) => {
            const id = `compose-${f.name}`;
            const props = {
              id,
              value: values[f.name],
              placeholder: f.placeholder,
              "aria-invalid": errors[f.name] ? true : undefined,
              "aria-describedby": errors[f.name] ? `${id}-error` : undefined,
              onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
                setValues((v) => ({ ...v, [f.name]: e.target.value })),
            };
            return (
              <div key={f.name} className={f.multiline ? "wide" : undefined}>
                <label htmlFor={id}>{f.label}</label>
                {f.multiline ? <textarea rows={3} {...props} /> : <input {...props} />}
                {errors[f.name] && (
                  <div className="error" id={`${id}-error`} data-testid={`${f.name}-error`}>
                    {errors[f.name]}
                  </div>
                )}
              </div>
            );
          })}
        </div>
        {errors.form && (
          <p className="error" role="alert">
            {errors.form}
          </p>
        )}
        <p className="row">
          <button className="primary" type="submit" disabled={send.isPending}>
            {send.isPending ? "Sending…" : "Send envelope"}
          </button>
          {send.isSuccess && !Object.keys(errors).length && (
            <span className="muted" role="status">
              Envelope #{send.data.envelope.id} queued.
            </span>
          )}
        </p>
      </form>
    </details>
  );
}
