/** Prisma's unique-constraint violation (P2002), however the driver adapter reports it. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return e?.code === "P2002" || /unique constraint/i.test(e?.message ?? "");
}
