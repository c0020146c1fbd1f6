import { AppError } from "@/lib/errors";
import { errorResponse } from "@/lib/http/respond";
import { metricsAuthorized, renderMetrics } from "@/lib/metrics/exposition";
import { getApp } from "@/lib/server/wiring";

export const dynamic = "force-dynamic";

/** Prometheus scrape target: this instance's metrics in the text exposition format (docs/OPERATIONS.md). */
export async function GET(request: Request) {
  try {
    const ctx = await getApp();
    if (!ctx.env.METRICS_ENABLED) throw new AppError("not_found", "metrics are off (METRICS_ENABLED=false)");
    if (!metricsAuthorized(request.headers.get("authorization"), [ctx.env.METRICS_TOKEN, ctx.env.SWITCHBOARD_API_TOKEN]))
      throw new AppError("unauthorized", "send Authorization: Bearer <METRICS_TOKEN or the API token>");
    const rendered = await renderMetrics(ctx.db);
    if (!rendered) throw new AppError("not_found", "metrics are off (METRICS_ENABLED=false)");
    return new Response(rendered.body, { headers: { "content-type": rendered.contentType, "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
