"use client";

export type HandoffSettings = {
  handoffCommand: string;
  handoffWaitingMessage: string;
  handoffTimeoutMinutes: number;
  handoffTimeoutMessage: string;
  handoffGuidance: string;
  handoffsPerUserPerHour: number;
  handoffTelegramChatId: string | null;
};

/** The settings page's "Human handoff" fields (part of the settings form's draft). */
export function HandoffSettingsFields({
  draft,
  onChange,
  fieldError,
}: {
  draft: HandoffSettings;
  onChange: (patch: Partial<HandoffSettings>) => void;
  fieldError: (key: string) => string | undefined;
}) {
  const error = (key: keyof HandoffSettings) =>
    fieldError(key) && (
      <div className="error" role="alert">
        {fieldError(key)}
      </div>
    );
  return (
    <>
      <h2>Human handoff</h2>
      <label htmlFor="handoffCommand">Handoff command</label>
      <input id="handoffCommand" value={draft.handoffCommand} onChange={(e) => onChange({ handoffCommand: e.target.value })} />
      <div className="muted">A user who sends it is handed to a person at once (works without a model).</div>
      {error("handoffCommand")}
      <label htmlFor="handoffWaitingMessage">Message when handed off</label>
      <textarea
        id="handoffWaitingMessage"
        rows={2}
        value={draft.handoffWaitingMessage}
        onChange={(e) => onChange({ handoffWaitingMessage: e.target.value })}
      />
      {error("handoffWaitingMessage")}
      <label htmlFor="handoffTimeoutMinutes">Wait before telling the user nobody came (minutes)</label>
      <input
        id="handoffTimeoutMinutes"
        type="number"
        value={String(draft.handoffTimeoutMinutes)}
        onChange={(e) => onChange({ handoffTimeoutMinutes: e.target.value === "" ? ("" as never) : Number(e.target.value) })}
      />
      {error("handoffTimeoutMinutes")}
      <label htmlFor="handoffTimeoutMessage">Message after that wait (sent once; the conversation stays in “Needs a human”)</label>
      <textarea
        id="handoffTimeoutMessage"
        rows={2}
        value={draft.handoffTimeoutMessage}
        onChange={(e) => onChange({ handoffTimeoutMessage: e.target.value })}
      />
      {error("handoffTimeoutMessage")}
      <label htmlFor="handoffGuidance">When the agent should hand off (in its system prompt)</label>
      <textarea
        id="handoffGuidance"
        rows={3}
        value={draft.handoffGuidance}
        onChange={(e) => onChange({ handoffGuidance: e.target.value })}
      />
      {error("handoffGuidance")}
      <label htmlFor="handoffsPerUserPerHour">Handoffs one user may start per hour</label>
      <input
        id="handoffsPerUserPerHour"
        type="number"
        value={String(draft.handoffsPerUserPerHour)}
        onChange={(e) => onChange({ handoffsPerUserPerHour: e.target.value === "" ? ("" as never) : Number(e.target.value) })}
      />
      <div className="muted">Across all their chats and forum topics; past it their requests are recorded, not handed off.</div>
      {error("handoffsPerUserPerHour")}
      <label htmlFor="handoffTelegramChatId">Operators&apos; Telegram chat id (optional)</label>
      <input
        id="handoffTelegramChatId"
        value={draft.handoffTelegramChatId ?? ""}
        onChange={(e) => onChange({ handoffTelegramChatId: e.target.value.trim() || null })}
      />
      <div className="muted">The bot posts each new handoff there.</div>
      {error("handoffTelegramChatId")}
    </>
  );
}
