import { errorResponse } from "@/lib/http/respond";
import { appContext } from "@/lib/server/context";

export const dynamic = "force-dynamic";

/** Telegram delivers updates here; see lib/channels/telegram/webhook.ts. */
export async function POST(request: Request) {
  try {
    return await (await appContext()).telegramWebhook(request);
  } catch (error) {
    return errorResponse(error);
  }
}
