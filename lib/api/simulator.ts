import { z } from "zod";
import { SIMULATED_SEND_FAILURES, type SimulatedSendFailure } from "../channels/telegram/adapter";
import { simulatedMessageSchema } from "../channels/telegram/simulator";
import { defineOperations } from "./operation";

export const sendFailureBody = z.object({
  next: z.enum(Object.keys(SIMULATED_SEND_FAILURES) as [SimulatedSendFailure, ...SimulatedSendFailure[]]).nullable(),
});
export const sendFailureResponse = z.strictObject({ next: sendFailureBody.shape.next });

/** The webhook handler's answer to the simulated update. */
export const simulatedUpdateResponse = z.strictObject({ ok: z.literal(true), result: z.looseObject({ status: z.string() }) });

export { simulatedMessageSchema };

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
    path: "/simulator/failures",
    summary: "Sandbox only: make the bot's next send fail as Telegram would (refused, server error, timeout)",
    body: sendFailureBody,
    response: { status: 200, schema: sendFailureResponse },
    errors: sandboxOnly,
  },
]);
