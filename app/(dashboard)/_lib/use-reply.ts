"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { OperatorReplyResponse } from "@/lib/pipeline/operator-reply";
import { api } from "./api";
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
      api<OperatorReplyResponse>(`/messages/${input.messageId}/reply`, { method: "POST", body: { text: input.text } }),
    onMutate: async (input) => {
      await client.cancelQueries({ queryKey: key });
      const previous = client.getQueryData<ConversationDetail>(key);
      const optimistic: TimelineMessage = {
        id: -Date.now(),
        direction: "outbound",
        senderKind: "operator",
        senderName: operator,
        text: input.text,
        sentAt: new Date().toISOString(),
        editedAt: null,
        replyToMessageId: input.messageId,
        replyToText: null,
        replyToSenderName: null,
        quoteText: null,
        threadId: null,
        forkId: null,
        envelopes: [],
        pending: true,
      };
      if (previous) client.setQueryData<ConversationDetail>(key, { ...previous, messages: [...previous.messages, optimistic] });
      return { previous };
    },
    onError: (_error, _input, context) => {
      if (context?.previous) client.setQueryData(key, context.previous);
    },
    onSettled: () => client.invalidateQueries({ queryKey: key }),
  });
}
