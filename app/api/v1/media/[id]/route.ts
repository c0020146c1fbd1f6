import { mediaQuery } from "@/lib/api/media";
import { AppError } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { fileResponse } from "@/lib/http/media";
import { idParam } from "@/lib/http/respond";
import { serveAttachment } from "@/lib/media/serve";

export const dynamic = "force-dynamic";

/** An attachment's bytes (or ?size=thumb, an image's preview), for signed-in operators and the API token only. */
export const GET = withOperator<{ id: string }>(
  async ({ request, params, ctx }) => {
    const id = idParam(params.id);
    const { size } = mediaQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    const read = await serveAttachment(ctx.db, id, size);
    if (read.ok) return fileResponse(read.file, request);
    if (read.reason === "not_found") throw new AppError("not_found", "attachment not found");
    if (read.reason === "no_thumbnail") throw new AppError("not_found", "no thumbnail: the file is not an image");
    throw new AppError("not_found", `the file is not stored (${read.status ?? "missing"})`);
  },
  { role: "agent", scope: "attachment" },
);
