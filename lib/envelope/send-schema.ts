import { z } from "zod";
import { OUTBOUND_TEXT_LIMIT, tooLongError } from "../channels/text-limit";
import { parseAddress } from "./address";
import { parseDeliverAt } from "./deliver-at";
import { recordId } from "../record-id";

/** The parser's own message, so the API, the CLI and the dashboard's form say the same thing. */
const accepts = (parse: (text: string) => unknown) => (text: string, ctx: z.RefinementCtx) => {
  try {
    parse(text);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : String(error) });
  }
};

/**
 * An envelope to send (POST /api/v1/envelopes, the envelope CLI, the dashboard's
 * compose form). Pure: no database, so the dashboard validates in the browser
 * with this very schema and shows the same field errors the API would return.
 */
export const sendEnvelopeSchema = z.object({
  from: z.string().min(1).max(200).superRefine(accepts(parseAddress)),
  to: z.string().min(1).max(200).superRefine(accepts(parseAddress)),
  text: z.string().min(1).max(OUTBOUND_TEXT_LIMIT, tooLongError(OUTBOUND_TEXT_LIMIT)),
  replyTo: recordId.optional(),
  deliverAt: z
    .string()
    .max(64)
    .superRefine(accepts((text) => parseDeliverAt(text, new Date())))
    .optional(),
  /** With `to` = this instance's agent: run the text as a background task in that conversation. */
  conversationId: recordId.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type SendEnvelopeInput = z.infer<typeof sendEnvelopeSchema>;
