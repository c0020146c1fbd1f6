"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api, ApiError } from "../_lib/api";
import type { ModelPrice, Settings } from "../_lib/types";

type Row = Omit<ModelPrice, "input" | "output" | "cachedInput"> & { input: string; output: string; cachedInput: string };

const toRow = (p: ModelPrice): Row => ({
  ...p,
  input: String(p.input),
  output: String(p.output),
  cachedInput: p.cachedInput === null ? "" : String(p.cachedInput),
});
/** An empty or unreadable price is sent as null, so the server says it is missing (Number("") would be a silent 0). */
const price = (text: string) => (text.trim() === "" || Number.isNaN(Number(text)) ? null : Number(text));
const toPrice = (r: Row): ModelPrice => ({
  provider: r.provider.trim(),
  model: r.model.trim(),
  input: price(r.input) as number,
  output: price(r.output) as number,
  cachedInput: price(r.cachedInput),
  note: r.note,
});

/** A text box as wide as its text (at least `min` characters): a provider or model cut to "opena" or "gpt-" cannot be checked. */
const widthFor = (text: string, min: number) => Math.max(min, text.length + 2);

const COLUMNS: Record<string, string> = {
  provider: "provider",
  model: "model",
  input: "input price",
  output: "output price",
  cachedInput: "cached input price",
  note: "note",
};

/** The server's complaint about a row, as "row 3 (openai gpt-4o): input price: 0 or more". */
function issueText(issue: { path: (string | number)[]; message: string }, rows: Row[]): string {
  if (typeof issue.path[1] !== "number") return issue.message;
  const row = rows[issue.path[1]];
  const name = row && (row.provider || row.model) ? ` (${[row.provider, row.model].filter(Boolean).join(" ")})` : "";
  const column = COLUMNS[String(issue.path[2])];
  return `row ${issue.path[1] + 1}${name}: ${column ? `${column}: ` : ""}${issue.message}`;
}

/**
 * The price table: US dollars per million tokens per provider and model. Each
 * turn's cost is computed with the prices saved when it runs; a model without a
 * row has no cost (shown as unknown, never as free).
 */
export function PriceTable() {
  const client = useQueryClient();
  const query = useQuery({ queryKey: ["settings"], queryFn: () => api<{ settings: Settings }>("/settings") });
  const [rows, setRows] = useState<Row[] | null>(null);
  useEffect(() => {
    if (query.data && !rows) setRows(query.data.settings.modelPrices.map(toRow));
  }, [query.data, rows]);
  const save = useMutation({
    mutationFn: (modelPrices: ModelPrice[]) => api<{ settings: Settings }>("/settings", { method: "PATCH", body: { modelPrices } }),
    onSuccess: (data) => {
      setRows(data.settings.modelPrices.map(toRow));
      void client.invalidateQueries({ queryKey: ["settings"] });
    },
  });
  if (!rows) return null;
  const edit = (i: number, patch: Partial<Row>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const issue =
    save.error instanceof ApiError ? (save.error.details as { path: (string | number)[]; message: string }[] | undefined)?.[0] : undefined;

  return (
    <form
      className="panel"
      style={{ marginTop: 16 }}
      data-testid="price-table"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(rows.map(toPrice));
      }}
    >
      <h2 style={{ marginTop: 0 }}>Model prices</h2>
      <p className="muted">
        US dollars per million tokens. Each turn stores its cost at the prices saved when it ran; a model without a row has an unknown cost.
        Rows marked “prefilled” are list prices taken on the date they name: check them against your provider before relying on them.
      </p>
      <div className="table-scroll">
        <table>
          <thead>
            <tr>
              <th>Provider</th>
              <th>Model</th>
              <th>Input</th>
              <th>Cached input</th>
              <th>Output</th>
              <th>Note</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place; provider and model change while typing
              <tr key={i} data-testid="price-row">
                <td>
                  <input
                    aria-label="Provider"
                    value={r.provider}
                    size={widthFor(r.provider, 8)}
                    onChange={(e) => edit(i, { provider: e.target.value })}
                  />
                </td>
                <td>
                  <input
                    aria-label="Model"
                    value={r.model}
                    size={widthFor(r.model, 14)}
                    onChange={(e) => edit(i, { model: e.target.value })}
                  />
                </td>
                <td>
                  <input
                    aria-label="Input price"
                    value={r.input}
                    size={6}
                    inputMode="decimal"
                    onChange={(e) => edit(i, { input: e.target.value })}
                  />
                </td>
                <td>
                  <input
                    aria-label="Cached input price"
                    value={r.cachedInput}
                    size={6}
                    inputMode="decimal"
                    placeholder="= input"
                    onChange={(e) => edit(i, { cachedInput: e.target.value })}
                  />
                </td>
                <td>
                  <input
                    aria-label="Output price"
                    value={r.output}
                    size={6}
                    inputMode="decimal"
                    onChange={(e) => edit(i, { output: e.target.value })}
                  />
                </td>
                <td className="muted" style={{ fontSize: "0.85em" }}>
                  <input aria-label="Note" value={r.note} size={widthFor(r.note, 14)} onChange={(e) => edit(i, { note: e.target.value })} />
                </td>
                <td>
                  <button
                    type="button"
                    aria-label={`Remove ${r.provider} ${r.model}`}
                    onClick={() => setRows(rows.filter((_, j) => j !== i))}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="row">
        <button
          type="button"
          onClick={() => setRows([...rows, { provider: "", model: "", input: "", output: "", cachedInput: "", note: "" }])}
        >
          Add a model
        </button>
        <button className="primary" type="submit" disabled={save.isPending}>
          Save prices
        </button>
      </p>
      {save.isError && (
        <p className="error" role="alert">
          Not saved: {issue ? issueText(issue, rows) : save.error.message}
        </p>
      )}
      {save.isSuccess && (
        <p role="status" className="muted">
          Prices saved. The next turn uses them.
        </p>
      )}
    </form>
  );
}
