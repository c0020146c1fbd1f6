import { AppError } from "../errors";

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A not-before delivery time: an ISO 8601 time with a zone ("2026-12-01T09:00:00Z")
 * or a relative form "+30m", "+2h", "+1d", "+90s", "+1h30m". Null input → null.
 */
export function parseDeliverAt(input: string | null | undefined, now: Date): Date | null {
  if (input === null || input === undefined || input === "") return null;
  const text = input.trim();
  if (text.startsWith("+")) {
    const parts = [...text.slice(1).matchAll(/(\d+)\s*([smhd])/g)];
    const consumed = parts.map((p) => p[0]).join("");
    if (parts.length === 0 || consumed.replace(/\s/g, "") !== text.slice(1).replace(/\s/g, "")) {
      throw new AppError("bad_request", `invalid deliverAt "${text}": use +30m, +2h, +1d, +1h30m or an ISO time`);
    }
    const ms = parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNIT_MS[unit as keyof typeof UNIT_MS], 0);
    if (ms > 366 * UNIT_MS.d) throw new AppError("bad_request", "deliverAt is more than a year ahead");
    return new Date(now.getTime() + ms);
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(text)) {
    throw new AppError("bad_request", `invalid deliverAt "${text}": use an ISO time with a zone (2026-12-01T09:00:00Z) or +30m, +2h`);
  }
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new AppError("bad_request", `invalid deliverAt "${text}"`);
  return date;
}
