import { errorResponse } from "@/lib/http/respond";
import { appContext } from "@/lib/server/context";

export const dynamic = "force-dynamic";

/** LINE delivers events here; see lib/channels/line/webhook.ts. */
export async function POST(request: Request) {
  try {
    return await (await appContext()).lineWebhook(request);
  } catch (error) {
    return errorResponse(error);
  }
}
