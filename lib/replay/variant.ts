import { z } from "zod";
import { MODEL_PROVIDERS } from "../agent/providers";
import { settingsUpdateSchema } from "../settings/schema";

/** Providers a replay may call: the ones the server can be configured with (lib/agent/providers.ts). */
export const replayProviders = MODEL_PROVIDERS;

/** Another model to try. The API key is used for the run and never stored or shown; without a base URL or key, the server's own for that provider. */
export const variantModelSchema = z.strictObject({
  provider: z.enum(replayProviders),
  model: z.string().trim().min(1).max(200),
  baseUrl: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional(),
  apiKey: z.string().min(1).max(1000).optional(),
});

/**
 * The settings a rebuild assembles the context under: every key that changes what
 * the model sees, with the same ranges as the settings page (an out-of-range value is a 400).
 */
export const variantSettingsSchema = settingsUpdateSchema
  .pick({
    recencyWindow: true,
    replyContextWindow: true,
    replyChainDepth: true,
    gapThresholdMinutes: true,
    quoteMaxChars: true,
    forkPendingUpdates: true,
    handoffGuidance: true,
  })
  .strict();

/** The keys of a variant's settings (the console's form shows one field each). */
export const variantSettingKeys = Object.keys(variantSettingsSchema.shape) as (keyof z.infer<typeof variantSettingsSchema>)[];

export const variantSchema = z.strictObject({
  /** Instead of the agent's instructions (settings `agentInstructions`). */
  instructions: z.string().max(4000).optional(),
  model: variantModelSchema.optional(),
  settings: variantSettingsSchema.optional(),
});

export type Variant = z.infer<typeof variantSchema>;
export type VariantModel = z.infer<typeof variantModelSchema>;

/** frozen: the recorded messages as they were sent; rebuild: the context assembled again from the database. */
export const replayMode = z.enum(["frozen", "rebuild"]);
export type ReplayMode = z.infer<typeof replayMode>;

export const replayRequestSchema = z
  .strictObject({ mode: replayMode, variant: variantSchema.default({}) })
  .refine((r) => r.mode === "rebuild" || !r.variant.settings || Object.keys(r.variant.settings).length === 0, {
    message: "context settings only change a rebuild: a frozen replay sends the recorded messages",
    path: ["variant", "settings"],
  });
export type ReplayRequest = z.infer<typeof replayRequestSchema>;

/** What is stored and shown of a variant: everything but the API key (only whether one was given). */
export function storedVariant(variant: Variant) {
  const { model, ...rest } = variant;
  if (!model) return rest;
  const { apiKey, ...shown } = model;
  return { ...rest, model: { ...shown, ...(apiKey ? { apiKeyGiven: true } : {}) } };
}
