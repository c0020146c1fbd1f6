import type { z } from "zod";
import { replyBodySchema } from "@/lib/pipeline/operator-reply";

export { replyBodySchema };
export type ReplyBody = z.infer<typeof replyBodySchema>;
