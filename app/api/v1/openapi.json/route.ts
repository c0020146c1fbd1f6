import { withOperator } from "@/lib/server/with-operator";
import { openApiDocument } from "@/lib/http/openapi";
import { jsonOf } from "@/lib/http/respond";
import { openApiResponse } from "@/lib/api/status";

export const dynamic = "force-dynamic";

export const GET = withOperator(async () => jsonOf(openApiResponse, openApiDocument()), { role: "agent" });
