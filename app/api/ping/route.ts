import { json, readJson } from "@/lib/http/respond";
import { z } from "zod";

export const dynamic = "force-dynamic";

/**
 * Echo liveness: parses a small JSON body and answers, touching nothing else.
 * Load balancers may use it; the ingest benchmark uses it as its baseline (the
 * framework's own cost on the same server).
 */
export async function POST(request: Request) {
  try {
    await readJson(request, z.unknown(), 64 * 1024);
    return json({ ok: true });
  } catch {
    return json({ ok: false }, 400);
  }
}
