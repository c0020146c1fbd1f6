import { AppError } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";

export const dynamic = "force-dynamic";

/** Unknown /api/v1 paths: authenticate first (401 to strangers), then a JSON 404. */
const notFound = withOperator(
  async ({ request }) => {
    throw new AppError("not_found", `no such endpoint: ${request.method} ${new URL(request.url).pathname}`);
  },
  { role: "agent" },
);
export { notFound as GET, notFound as POST, notFound as PATCH, notFound as PUT, notFound as DELETE };
