import type { Settings } from "../_lib/types";

/** `id`: the option's value in the page (what a test or a user agent selects); `value`: the setting's. */
type Choice = { id: string; value: unknown; label: string };

/** One setting as the forms show it: its label, help and input. Shared by Settings and each bot's own settings (Bots). */
export type SettingField = {
  key: keyof Settings;
  label: string;
  help?: string;
  input:
    | { kind: "number"; min?: number }
    | { kind: "text" }
    | { kind: "textarea"; rows: number }
    | { kind: "choice"; options: Choice[] }
    | { kind: "check" };
};

const number = (key: keyof Settings, label: string, help: string): SettingField => ({ key, label, help, input: { kind: "number" } });

export const CONTEXT_FIELDS: SettingField[] = [
  number("recencyWindow", "Recency window (messages)", "The last N messages are always in context."),
  number("replyContextWindow", "Reply context window", "Messages before and after a reply's target."),
  number("replyChainDepth", "Reply chain depth", "How far up a reply chain to follow."),
  number("gapThresholdMinutes", "Gap threshold (minutes)", "Longer silences add a gap note to the prompt."),
  number("quoteMaxChars", "Quote length (characters)", "Quoted text in reply annotations is cut here."),
  number("forkReplyTtlDays", "Fork reply TTL (days)", "Replies to older fork messages just quote them."),
  number(
    "forkPendingUpdates",
    "Fork pending updates (messages)",
    "A resumed fork sees at most this many main-chat messages sent since it began.",
  ),
  number("forkIdleMinutes", "Fork idle timeout (minutes)", "Idle interactive forks are warned, then closed."),
  number(
    "maxImagesPerTurn",
    "Images per turn",
    "The newest pictures in context are sent to the model as images; older ones keep their text line.",
  ),
];

/** Deployment-wide: each instance's and each agent's budget, not a bot's. */
export const REPLAY_QUOTA_FIELD = number(
  "replaysPerAgentPerDay",
  "Replays per agent per day",
  "Model calls agents may spend on replays and dataset runs (a run counts all its turns); admins are not limited. 0 = agents may not replay.",
);

export const ANSWERING_FIELDS: SettingField[] = [
  {
    key: "groupAnswerMode",
    label: "In groups, the agent answers",
    input: {
      kind: "choice",
      options: [
        { id: "addressed", value: "addressed", label: "when mentioned, commanded or replied to" },
        { id: "all", value: "all", label: "every message" },
        { id: "never", value: "never", label: "never (operators only)" },
      ],
    },
  },
  {
    key: "answerChatSenders",
    label: "Messages a chat sends (Telegram: anonymous admins, channels, automatic forwards)",
    input: {
      kind: "choice",
      options: [
        { id: "anonymous_admins", value: "anonymous_admins", label: "answer anonymous admins, not channels" },
        { id: "all", value: "all", label: "answer all of them" },
        { id: "none", value: "none", label: "answer none of them" },
      ],
    },
  },
  {
    key: "typingIndicator",
    label: 'Show the bot working while it thinks (Telegram "typing…", LINE loading animation)',
    input: { kind: "check" },
  },
  {
    key: "streamDrafts",
    label: "Telegram private chats: show the answer as it is written (drafts), then send it once",
    input: { kind: "check" },
  },
  {
    key: "modelSeesImages",
    label: "The model sees pictures",
    help: "Photos, image documents and static stickers go to the model as images; turn it off for models without vision.",
    input: {
      kind: "choice",
      options: [
        { id: "provider", value: null, label: "By provider (on for OpenAI, Anthropic and the demo model, off for OpenAI-compatible)" },
        { id: "on", value: true, label: "On" },
        { id: "off", value: false, label: "Off: a text line describes each picture" },
      ],
    },
  },
];

export const HANDOFF_FIELDS: SettingField[] = [
  {
    key: "handoffCommand",
    label: "Handoff command",
    help: "A user who sends it is handed to a person at once (works without a model).",
    input: { kind: "text" },
  },
  { key: "handoffWaitingMessage", label: "Message when handed off", input: { kind: "textarea", rows: 2 } },
  { key: "handoffTimeoutMinutes", label: "Wait before telling the user nobody came (minutes)", input: { kind: "number" } },
  {
    key: "handoffTimeoutMessage",
    label: "Message after that wait (sent once; the conversation stays in “Needs a human”)",
    input: { kind: "textarea", rows: 2 },
  },
  { key: "handoffGuidance", label: "When the agent should hand off (in its system prompt)", input: { kind: "textarea", rows: 3 } },
  {
    key: "handoffsPerUserPerHour",
    label: "Handoffs one user may start per hour",
    help: "Across all their chats and forum topics; past it their requests are recorded, not handed off.",
    input: { kind: "number" },
  },
  {
    key: "handoffTelegramChatId",
    label: "Operators' Telegram chat id (optional)",
    help: "The bot posts each new handoff there.",
    input: { kind: "text" },
  },
];

/** A value as its field shows it: a choice by its label, on/off, the text itself. */
export function fieldValueText(field: SettingField, value: unknown): string {
  if (field.input.kind === "choice") return field.input.options.find((o) => o.value === value)?.label ?? String(value);
  if (field.input.kind === "check") return value ? "on" : "off";
  if (value === null || value === "") return "none";
  return String(value);
}

/**
 * One setting's input. `value` undefined with `inherited` given (a bot's own settings):
 * the field is empty and says what it inherits; emptying a field puts it back to inherit
 * (onChange(undefined)). Without `inherited` (the global form) a value is always set.
 */
export function SettingInput({
  field,
  id,
  value,
  onChange,
  inherited,
  error,
}: {
  field: SettingField;
  id: string;
  value: unknown;
  onChange: (value: unknown) => void;
  inherited?: { value: unknown };
  error?: string;
}) {
  const { input } = field;
  const ofBot = inherited !== undefined;
  const inheritsText = ofBot ? `inherits: ${fieldValueText(field, inherited.value)}` : undefined;
  const described = [field.help ? `${id}-help` : null, ofBot ? `${id}-inherits` : null].filter(Boolean).join(" ") || undefined;
  const below = (
    <>
      {field.help && (
        <div id={`${id}-help`} className="muted">
          {field.help}
        </div>
      )}
      {ofBot && (
        <div id={`${id}-inherits`} className="muted" data-testid={`inherits-${field.key}`}>
          {value === undefined ? "Empty: " : "Global value: "}
          {fieldValueText(field, inherited.value)}
        </div>
      )}
      {error && (
        <div className="error" role="alert">
          {error}
        </div>
      )}
    </>
  );
  if (input.kind === "check" && !ofBot)
    return (
      <div>
        <label className="check">
          <input id={id} type="checkbox" checked={Boolean(value)} onChange={(e) => onChange(e.target.checked)} /> {field.label}
        </label>
        {below}
      </div>
    );
  // A bot's checkbox is a choice: it may also inherit.
  const options =
    input.kind === "check"
      ? [true, false].map((v) => ({ id: v ? "on" : "off", value: v, label: v ? "On" : "Off" }))
      : input.kind === "choice"
        ? input.options
        : null;
  let control: React.ReactNode;
  if (options) {
    control = (
      <select
        id={id}
        value={value === undefined ? "" : (options.find((o) => o.value === value)?.id ?? "")}
        onChange={(e) => onChange(e.target.value === "" ? undefined : options.find((o) => o.id === e.target.value)?.value)}
        aria-describedby={described}
      >
        {ofBot && <option value="">Inherit ({fieldValueText(field, inherited.value)})</option>}
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.label}
          </option>
        ))}
      </select>
    );
  } else {
    const text = value === undefined || value === null ? "" : String(value);
    // The global form keeps what was typed (zod's message explains a bad number); a bot's empty field inherits.
    const changed = (raw: string) =>
      onChange(
        raw === "" && ofBot
          ? undefined
          : input.kind === "number"
            ? raw === ""
              ? ""
              : Number(raw)
            : field.key === "handoffTelegramChatId"
              ? raw.trim() || null
              : raw,
      );
    control =
      input.kind === "textarea" ? (
        <textarea
          id={id}
          rows={input.rows}
          value={text}
          placeholder={inheritsText}
          onChange={(e) => changed(e.target.value)}
          aria-describedby={described}
        />
      ) : (
        <input
          id={id}
          type={input.kind === "number" ? "number" : "text"}
          value={text}
          placeholder={inheritsText}
          onChange={(e) => changed(e.target.value)}
          aria-describedby={described}
        />
      );
  }
  return (
    <div>
      <label htmlFor={id}>{field.label}</label>
      {control}
      {below}
    </div>
  );
}
