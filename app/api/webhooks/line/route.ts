import { errorResponse } from "@/lib/http/respond";
import { getApp } from "@/lib/server/wiring";

export const dynamic = "force-dynamic";

/** LINE delivers events here; see lib/channels/line/webhook.ts. */
export async function POST(request: Request) {
  try {
    return await (await getApp()).lineWebhook(request);
  } catch (error) {
    return errorResponse(error);
  }
}
