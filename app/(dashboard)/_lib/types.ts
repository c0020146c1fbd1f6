/** JSON shapes of /api/v1 as the dashboard reads them (dates are ISO strings). */
export type StatusInfo = {
  model: { provider: string; modelId: string } | null;
  telegram: { mode: "live" | "sandbox"; username: string | null; webhook?: { url: string; pendingUpdates: number; lastError?: string }; error?: string };
  line: { enabled: boolean };
  database: "sqlite" | "postgresql";
};

export type ConversationSummary = {
  id: number;
  channel: string;
  platformChatId: string;
  type: string;
  title: string | null;
  /** A forum topic: its thread id, name and the chat's own conversation. */
  topicId: string | null;
  topicName: string | null;
  parentConversationId: number | null;
  /** null = the bot may send; else "blocked" | "removed" | "left". */
  membership: string | null;
  lastMessageAt: string | null;
  agentEnabled: boolean;
  unread: number;
  activeFork: { id: number; title: string | null; status: string } | null;
  lastMessage: { text: string; senderName: string | null; senderKind: string; sentAt: string } | null;
};

export type EnvelopeBrief = { id: number; status: string; lastDeliveryError: string | null; from?: string };

export type TimelineMessage = {
  id: number;
  direction: "inbound" | "outbound";
  senderKind: "user" | "agent" | "operator" | "system";
  senderName: string | null;
  text: string;
  sentAt: string;
  editedAt: string | null;
  /** Earlier texts of an edited message, oldest first. */
  revisions?: { text: string; replacedAt: string }[];
  deletedAt?: string | null;
  senderRole?: string | null;
  forwardedFrom?: string | null;
  viaBot?: string | null;
  replyToChatTitle?: string | null;
  replyToMessageId: number | null;
  replyToText: string | null;
  replyToSenderName: string | null;
  quoteText: string | null;
  threadId: number | null;
  forkId: number | null;
  envelopes: EnvelopeBrief[];
  /** Client-side only: an optimistic reply not yet confirmed. */
  pending?: boolean;
};

export type ConversationDetail = {
  conversation: ConversationSummary & { generation: number };
  messages: TimelineMessage[];
  nextBefore: number | null;
};

export type ThreadMember = {
  id: number;
  conversationId: number;
  direction: string;
  senderKind: string;
  senderName: string | null;
  text: string;
  sentAt: string;
  replyToMessageId: number | null;
  forkId: number | null;
  envelopes: (EnvelopeBrief & { turn: { id: number } | null })[];
};

export type ThreadResponse = { messageId: number; threadId: number | null; members: ThreadMember[] };

export type Turn = {
  id: number;
  envelopeId: number;
  model: string;
  system: string;
  prompt: { role: string; content: unknown }[];
  toolCalls: { message: string; outcome: unknown }[];
  usage: Record<string, unknown>;
  latencyMs: number | null;
  error: string | null;
  createdAt: string;
  conversationId: number;
  envelope: { id: number; messageId: number | null; status: string };
  previousTurnId: number | null;
  nextTurnId: number | null;
};

export type Envelope = {
  id: number;
  from: string;
  to: string;
  status: "pending" | "processing" | "done" | "failed";
  text: string;
  deliverAt: string | null;
  replyToEnvelopeId: number | null;
  conversationId: number | null;
  messageId: number | null;
  forkId: number | null;
  lastDeliveryError: string | null;
  attempts?: number;
  metadata?: Record<string, unknown>;
  createdAt: string;
  turn?: { id: number } | null;
  depth?: number;
};

export type Fork = {
  id: number;
  conversationId: number;
  kind: "background" | "interactive";
  status: "running" | "done" | "failed" | "active" | "exited" | "expired";
  parentForkId: number | null;
  startedBy: string | null;
  title: string | null;
  exitStrategy: string | null;
  summary: string | null;
  startedAt: string;
  lastActivityAt: string;
  endedAt: string | null;
  _count?: { messages: number };
  conversation?: { id: number; title: string | null; platformChatId: string; activeForkId: number | null };
};
