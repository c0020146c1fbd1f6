import { withOperator } from "@/lib/http/api";
import { openApiDocument } from "@/lib/http/openapi";
import { json } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator(async () => json(openApiDocument()));
