import { errorResponse } from "@/lib/http/respond";
import { getApp } from "@/lib/server/wiring";

export const dynamic = "force-dynamic";

/** Telegram delivers updates here; see lib/channels/telegram/webhook.ts. */
export async function POST(request: Request) {
  try {
    return await (await getApp()).telegramWebhook(request);
  } catch (error) {
    return errorResponse(error);
  }
}
