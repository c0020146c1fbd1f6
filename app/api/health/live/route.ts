import { json } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/**
 * Liveness: the process answers HTTP. Nothing else is checked, so a database
 * outage never makes an orchestrator restart a healthy process (readiness does that job).
 */
export function GET() {
  return json({ status: "alive", uptimeSeconds: Math.round(process.uptime()) });
}
