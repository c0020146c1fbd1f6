import type { z } from "zod";
import type {
  contactResponse,
  conversationListResponse,
  conversationStatsResponse,
  conversationSummary,
  noteView,
  stateChangeView,
  timelineResponse,
} from "@/lib/api/conversations/schema";
import type { savedReplyView } from "@/lib/api/saved-replies";
import type { envelopeThreadResponse, envelopeWithTurn } from "@/lib/api/envelopes/schema";
import type { forkListItem, forkRow } from "@/lib/api/forks/schema";
import type { searchResponse } from "@/lib/api/live";
import type { messageThreadResponse, replyResponse, timelineMessage } from "@/lib/api/messages/schema";
import type { queueResponse } from "@/lib/api/queue";
import type { reportResponse } from "@/lib/api/reports/schema";
import type { applyResponse, datasetListResponse, replayView, runReportResponse } from "@/lib/api/replays/schema";
import type { attachmentView } from "@/lib/media/attachment-views";
import type { settingsResponse, settingsValues } from "@/lib/api/settings/schema";
import type { simulatedUpdateResponse } from "@/lib/api/simulator/schema";
import type { statusResponse } from "@/lib/api/status";
import type { turnResponse } from "@/lib/api/turns/schema";
import type { conversationUsageResponse, usageResponse } from "@/lib/api/usage";

/**
 * JSON shapes of /api/v1 as the dashboard reads them (dates are ISO strings),
 * derived from the response schemas the routes are typed by (lib/api). Type-only
 * imports: no server code reaches the browser bundle.
 */
export type StatusInfo = z.output<typeof statusResponse>;

export type ConversationSummary = z.output<typeof conversationSummary>;
export type ConversationList = z.output<typeof conversationListResponse>;
export type Note = z.output<typeof noteView>;
export type StateChange = z.output<typeof stateChangeView>;
export type ContactInfo = z.output<typeof contactResponse>;
export type SavedReply = z.output<typeof savedReplyView>;

/** One file of a message (photo, voice note, document…), as every message view carries it. */
export type AttachmentView = z.output<typeof attachmentView>;

export type TimelineMessage = z.output<typeof timelineMessage> & {
  /** Client-side only: an optimistic reply not yet confirmed. */
  pending?: boolean;
};

/** An envelope as the timeline and thread views show it (the thread's have no `from`). */
export type EnvelopeBrief = Pick<
  z.output<typeof timelineMessage>["envelopes"][number],
  "id" | "status" | "lastDeliveryError" | "outcome"
> & { from?: string };

export type ConversationDetail = Omit<z.output<typeof timelineResponse>, "messages"> & { messages: TimelineMessage[] };

export type ThreadResponse = z.output<typeof messageThreadResponse>;
export type ThreadMember = ThreadResponse["members"][number];

export type Turn = z.output<typeof turnResponse>;

export type Envelope = z.output<typeof envelopeWithTurn>;
export type ThreadEnvelope = z.output<typeof envelopeThreadResponse>["chain"][number];
export type EnvelopeThread = z.output<typeof envelopeThreadResponse>;

/** A fork as a mutation returns it; the list adds its message count and conversation. */
export type Fork = z.output<typeof forkRow> & Partial<Pick<z.output<typeof forkListItem>, "_count" | "conversation">>;
export type ForkListItem = z.output<typeof forkListItem>;

export type ConversationStats = z.output<typeof conversationStatsResponse>;
export type QueueInfo = z.output<typeof queueResponse>;
export type Settings = z.output<typeof settingsValues>;
export type SettingsInfo = z.output<typeof settingsResponse>;
export type SimulatedUpdateResult = z.output<typeof simulatedUpdateResponse>;

/** What an operator's reply or plain message returns (201): `recorded: false` carries a warning to show. */
export type ReplyResponse = z.output<typeof replyResponse>;

/** One hit of GET /api/v1/search. */
export type SearchResult = z.output<typeof searchResponse>["results"][number];
export type NoteSearchResult = z.output<typeof searchResponse>["notes"][number];

export type UsageReport = z.output<typeof usageResponse>;
/** The inbox report (GET /api/v1/reports). */
export type Report = z.output<typeof reportResponse>;
export type ConversationUsage = z.output<typeof conversationUsageResponse>;
export type ModelPrice = Settings["modelPrices"][number];

export type Replay = z.output<typeof replayView>;
export type DatasetList = z.output<typeof datasetListResponse>;
export type RunReport = z.output<typeof runReportResponse>;
export type Applied = z.output<typeof applyResponse>;
