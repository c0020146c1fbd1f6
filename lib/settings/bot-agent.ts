import { z } from "zod";
import { MODEL_PROVIDERS } from "../agent/providers";
import { settingsUpdateSchema } from "./schema";

/** A bot's own model: provider and model name, an optional base URL; its key is stored apart, sealed. */
export const botModelSchema = z.strictObject({
  provider: z.enum(MODEL_PROVIDERS),
  model: z.string().min(1).max(200),
  baseUrl: z
    .url({ protocol: /^https?$/ })
    .max(500)
    .optional(),
});
export type BotModel = z.infer<typeof botModelSchema>;

/** A bot row's stored agent parts, parsed; a stored value that no longer validates is ignored (inherit). */
export function botAgentOf(row: { instructions: string | null; model: string | null; settings: string | null }) {
  const model = row.model ? botModelSchema.safeParse(JSON.parse(row.model)) : null;
  const overrides = row.settings ? settingsUpdateSchema.safeParse(JSON.parse(row.settings)) : null;
  return {
    instructions: row.instructions,
    model: model?.success ? model.data : null,
    settings: overrides?.success ? overrides.data : {},
  };
}
