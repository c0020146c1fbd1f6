"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "./api";
import type { z } from "zod";
import type { replyResponse } from "@/lib/api/messages/schema";
import type { ConversationDetail, TimelineMessage } from "./types";

/**
 * Sends an operator's threaded reply. The reply shows at once in the timeline
 * (optimistic), then is replaced by the stored message or marked failed. A reply
 * delivered but not saved succeeds with `recorded: false` and a warning to show.
 */
export function useReply(conversationId: number, operator = "you") {
  const client = useQueryClient();
  const key = ["conversation", conversationId];
  return useMutation({
    mutationFn: (input: { messageId: number; text: string }) =>
      api<z.output<typeof replyResponse>>(`/messages/${input.messageId}/reply`, { method: "POST", body: { text: input.text } }),
    onMutate: async (input) => {
      await client.cancelQueries({ queryKey: key });
      const previous = client.getQueryData<ConversationDetail>(key);
      const now = new Date().toISOString();
      const optimistic: TimelineMessage = {
        id: -Date.now(),
        conversationId,
        direction: "outbound",
        senderKind: "operator",
        senderPlatformId: null,
        senderName: operator,
        senderUsername: null,
        senderIsBot: true,
        senderRole: null,
        senderLanguage: null,
        text: input.text,
        forwardedFrom: null,
        viaBot: null,
        replyToChatTitle: null,
        platformMessageId: null,
        platformTopicId: null,
        replyToMessageId: input.messageId,
        replyToPlatformId: null,
        replyToText: null,
        replyToSenderName: null,
        replyToSenderIsBot: null,
        quoteText: null,
        threadId: null,
        forkId: null,
        turnId: null,
        mentionsBot: false,
        sentAt: now,
        editedAt: null,
        deletedAt: null,
        deletedBy: null,
        mediaGroupId: null,
        shared: null,
        createdAt: now,
        envelopes: [],
        revisions: [],
        attachments: [],
        pending: true,
      };
      if (previous) client.setQueryData<ConversationDetail>(key, { ...previous, messages: [...previous.messages, optimistic] });
      return { previous };
    },
    onError: (_error, _input, context) => {
      if (context?.previous) client.setQueryData(key, context.previous);
    },
    onSettled: () => {
      void client.invalidateQueries({ queryKey: key });
      // A reply to a user waiting for a human takes the conversation (lib/pipeline/operator-reply.ts).
      void client.invalidateQueries({ queryKey: ["conversation-handoff", conversationId] });
      void client.invalidateQueries({ queryKey: ["handoffs"] });
    },
  });
}
