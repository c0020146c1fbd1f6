import { z } from "zod";
import { SIMULATED_SEND_FAILURES, type SimulatedSendFailure } from "../../channels/telegram/adapter";
import { sandboxMediaSchema } from "../../channels/telegram/sandbox-files";
import { simulatedFileFields, simulatedMessageSchema } from "../../channels/telegram/simulator";
import { defineOperations } from "../operation";

export const sendFailureBody = z.object({
  next: z.enum(Object.keys(SIMULATED_SEND_FAILURES) as [SimulatedSendFailure, ...SimulatedSendFailure[]]).nullable(),
});
export const sendFailureResponse = z.strictObject({ next: sendFailureBody.shape.next });

/** The webhook handler's answer to the simulated update. */
export const simulatedUpdateResponse = z.strictObject({ ok: z.literal(true), result: z.looseObject({ status: z.string() }) });

export { simulatedMessageSchema };

/** The simulator's upload (multipart/form-data): the file and how the user sends it. */
export const simulatedFileForm = simulatedFileFields.extend({ file: z.string().meta({ format: "binary" }) });
/** The Message field that carries the file, as Telegram shapes it: put it in the next update's `media`. */
export const simulatedFileResponse = sandboxMediaSchema;

const sandboxOnly = { 403: "A real Telegram bot token is configured" };

export const operations = defineOperations([
  {
    method: "post",
    path: "/simulator/updates",
    summary: "Sandbox only: play a Telegram user through the real webhook handler",
    body: simulatedMessageSchema,
    response: { status: 200, schema: simulatedUpdateResponse },
    errors: sandboxOnly,
  },
  {
    method: "post",
    path: "/simulator/files",
    summary:
      "Sandbox only: a file the simulated user sends (multipart: file, kind photo|document|voice), kept as Telegram keeps it (a photo as JPEG copies, a voice note OGG/Opus); answers the Message field to send it in (`media` of POST /simulator/updates), whose file_ids the sandbox's own Bot API serves to the media fetch",
    body: simulatedFileForm,
    bodyContentType: "multipart/form-data",
    response: { status: 201, schema: simulatedFileResponse },
    errors: { ...sandboxOnly, 413: "Larger than Telegram's 20 MB", 415: "Not multipart/form-data" },
  },
  {
    method: "post",
    path: "/simulator/failures",
    summary: "Sandbox only: make the bot's next send fail as Telegram would (refused, server error, timeout)",
    body: sendFailureBody,
    response: { status: 200, schema: sendFailureResponse },
    errors: sandboxOnly,
  },
]);
