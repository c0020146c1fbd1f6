/** Prisma's unique-constraint violation (P2002), however the driver adapter reports it. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return e?.code === "P2002" || /unique constraint/i.test(e?.message ?? "");
}

/**
 * PostgreSQL gave up on a transaction because of a concurrent one (40P01 deadlock
 * detected, 40001 serialization failure): nothing of it was written, and running
 * it again is the documented remedy.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === "40P01" || code === "40001";
}
