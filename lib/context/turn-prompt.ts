import type { ContextFacts } from "../db/context-facts";
import { assembleContext, type ContextSettings } from "./assemble";
import { renderPrompt, type Prompt, type PromptInput } from "./prompt";

export type TurnPromptSettings = ContextSettings & PromptInput["settings"];

/**
 * Stored facts and settings in, the model's messages out: the one way a turn's
 * prompt is made (the main turn, a fork's turn, a background task). Pure: the
 * same facts with other settings give the prompt those settings would have given.
 */
export function turnPrompt(facts: ContextFacts, settings: TurnPromptSettings): Prompt {
  return renderPrompt(assembleContext(facts, settings), settings);
}
