import { z } from "zod";

export const replyBodySchema = z.object({ text: z.string().trim().min(1, "write a message").max(4000) });
export type ReplyBody = z.infer<typeof replyBodySchema>;
