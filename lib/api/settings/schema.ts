import { recordIdParam } from "../../record-id";
import { z } from "zod";
import { settingsSchema, settingsUpdateSchema } from "../../settings/schema";
import { defineOperations, isoDate } from "../operation";

/** All settings as in force (stored values over defaults). */
export const settingsValues = z.strictObject(settingsSchema.shape);

export const settingChange = z.strictObject({
  id: z.number().int(),
  key: z.string(),
  oldValue: z.unknown(),
  newValue: z.unknown(),
  /** The operator's name. */
  changedBy: z.string(),
  /** null: a global setting; else the bot whose own setting changed (null values there: inherits the global one). Its name is null once the bot is erased. */
  bot: z.strictObject({ id: z.number().int(), name: z.string().nullable() }).nullable(),
  createdAt: isoDate,
});

export const settingsResponse = z.strictObject({
  settings: settingsValues,
  /** With `datasetId` only: the dataset's turns belong to several bots, so `settings` are the global ones. */
  spansBots: z.boolean().optional(),
  changes: z.array(settingChange),
});
export const updatedSettingsResponse = z.strictObject({ settings: settingsValues });

export { settingsUpdateSchema };

export const operations = defineOperations([
  {
    method: "get",
    path: "/settings",
    summary:
      "Settings and their change log (newest 50); with conversationId, the settings in force for that conversation's bot; with datasetId, those a run of it starts from",
    query: z.strictObject({ conversationId: recordIdParam.optional(), datasetId: recordIdParam.optional() }),
    response: { status: 200, schema: settingsResponse },
    errors: {
      403: "datasetId from an agent limited to some bots",
      404: "Unknown conversation or dataset, or another bot's conversation for an agent limited to some bots",
    },
  },
  {
    method: "patch",
    path: "/settings",
    summary: "Update some settings; effective on the next message, on every instance",
    body: settingsUpdateSchema,
    response: { status: 200, schema: updatedSettingsResponse },
  },
]);
