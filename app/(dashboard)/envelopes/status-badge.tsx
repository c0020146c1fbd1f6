const KIND: Record<string, string> = { done: "ok", failed: "err", pending: "warn", processing: "warn" };

export function StatusBadge({ status, title }: { status: string; title?: string | null }) {
  return (
    <span className={`badge ${KIND[status] ?? ""}`} title={title ?? undefined}>
      {status}
    </span>
  );
}
