import { simulatedFileResponse } from "@/lib/api/simulator/schema";
import { SANDBOX_MAX_FILE_BYTES } from "@/lib/channels/telegram/sandbox-files";
import { keepSimulatedFile } from "@/lib/channels/telegram/simulator";
import { withOperator } from "@/lib/server/with-operator";
import { withUploadForm } from "@/lib/http/multipart";
import { jsonOf } from "@/lib/http/respond";
import { blobStoreFor } from "@/lib/media/blob-store";

export const dynamic = "force-dynamic";

/** The sandbox simulator's file: kept as Telegram keeps a user's upload, answered as the Message field that carries it. */
export const POST = withOperator(
  async ({ request, ctx, caller }) => {
    const store = blobStoreFor(ctx.db);
    const media = await withUploadForm(
      request,
      { maxFileBytes: SANDBOX_MAX_FILE_BYTES, slots: ctx.uploads, holder: `${caller.via}:${caller.operator.id}` },
      (form) => keepSimulatedFile({ telegram: ctx.telegram, put: (bytes, type) => store.put(bytes, type) }, form),
    );
    return jsonOf(simulatedFileResponse, media, 201);
  },
  { role: "admin", to: "use the simulator" },
);
