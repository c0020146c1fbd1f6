"use client";

import { useQuery } from "@tanstack/react-query";
import { api } from "../_lib/api";
import type { Settings, SettingsInfo } from "../_lib/types";
import { ANSWERING_FIELDS, CONTEXT_FIELDS, HANDOFF_FIELDS, SettingInput, type SettingField } from "../settings/setting-fields";

/** The settings a bot may have of its own: those its conversations read (the deployment-wide ones stay on Settings). */
const SECTIONS: [string, SettingField[]][] = [
  ["Context and forks", CONTEXT_FIELDS],
  ["Answering", ANSWERING_FIELDS],
  ["Human handoff", HANDOFF_FIELDS],
];

/**
 * A bot's own settings, with the global Settings page's fields and help: a field left
 * empty inherits the global value, which it shows. `draft` holds only the bot's own
 * values (what PATCH /bots/{id} takes as `settings`).
 */
export function BotSettingsFields({
  botId,
  draft,
  onChange,
  fieldError,
}: {
  botId: number;
  draft: Partial<Settings>;
  onChange: (draft: Partial<Settings>) => void;
  fieldError: (key: string) => string | undefined;
}) {
  const global = useQuery({ queryKey: ["settings"], queryFn: () => api<SettingsInfo>("/settings") });
  if (!global.data) return <p className="muted">Loading the global settings…</p>;
  const set = (key: keyof Settings, value: unknown) => {
    const { [key]: _, ...rest } = draft;
    onChange(value === undefined ? rest : { ...rest, [key]: value });
  };
  return (
    <fieldset data-testid="bot-settings">
      <legend>Settings (empty: inherits the global value)</legend>
      {SECTIONS.map(([title, fields]) => (
        <div key={title}>
          <h3>{title}</h3>
          {fields.map((f) => (
            <SettingInput
              key={f.key}
              field={f}
              id={`bot-${botId}-${f.key}`}
              value={draft[f.key]}
              onChange={(v) => set(f.key, v)}
              inherited={{ value: global.data.settings[f.key] }}
              error={fieldError(f.key)}
            />
          ))}
        </div>
      ))}
      <p className="muted">
        Conversations and model calls at once, the burst debounce, how long files are kept, the replay quota and model prices are the
        deployment&apos;s (Settings).
      </p>
    </fieldset>
  );
}
