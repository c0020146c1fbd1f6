-- CreateTable
CREATE TABLE "Conversation" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "channel" TEXT NOT NULL,
    "platformChatId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "title" TEXT,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "lastMessageAt" DATETIME,
    "lastReadAt" DATETIME,
    "activeForkId" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Conversation_activeForkId_fkey" FOREIGN KEY ("activeForkId") REFERENCES "Fork" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Message" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "conversationId" INTEGER NOT NULL,
    "direction" TEXT NOT NULL,
    "senderKind" TEXT NOT NULL,
    "senderPlatformId" TEXT,
    "senderName" TEXT,
    "senderUsername" TEXT,
    "senderIsBot" BOOLEAN NOT NULL DEFAULT false,
    "text" TEXT NOT NULL,
    "platformMessageId" TEXT,
    "platformTopicId" TEXT,
    "replyToMessageId" INTEGER,
    "replyToPlatformId" TEXT,
    "replyToText" TEXT,
    "replyToSenderName" TEXT,
    "replyToSenderIsBot" BOOLEAN,
    "quoteText" TEXT,
    "threadId" INTEGER,
    "forkId" INTEGER,
    "mentionsBot" BOOLEAN NOT NULL DEFAULT false,
    "sentAt" DATETIME NOT NULL,
    "editedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Message_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Message_replyToMessageId_fkey" FOREIGN KEY ("replyToMessageId") REFERENCES "Message" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Message_threadId_fkey" FOREIGN KEY ("threadId") REFERENCES "Thread" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Message_forkId_fkey" FOREIGN KEY ("forkId") REFERENCES "Fork" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "MessageRevision" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "messageId" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "replacedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "MessageRevision_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Thread" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "conversationId" INTEGER NOT NULL,
    "rootMessageId" INTEGER NOT NULL,
    "messageCount" INTEGER NOT NULL DEFAULT 1,
    "lastMessageAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Thread_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "InboundUpdate" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "channel" TEXT NOT NULL,
    "updateId" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Envelope" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "from" TEXT NOT NULL,
    "to" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "text" TEXT NOT NULL,
    "deliverAt" DATETIME,
    "replyToEnvelopeId" INTEGER,
    "conversationId" INTEGER,
    "messageId" INTEGER,
    "forkId" INTEGER,
    "metadata" JSONB NOT NULL,
    "lastDeliveryError" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "dedupeKey" TEXT,
    "claimedBy" TEXT,
    "leaseUntil" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "doneAt" DATETIME,
    CONSTRAINT "Envelope_replyToEnvelopeId_fkey" FOREIGN KEY ("replyToEnvelopeId") REFERENCES "Envelope" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Envelope_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Envelope_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Envelope_forkId_fkey" FOREIGN KEY ("forkId") REFERENCES "Fork" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Turn" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "envelopeId" INTEGER NOT NULL,
    "conversationId" INTEGER NOT NULL,
    "forkId" INTEGER,
    "model" TEXT NOT NULL,
    "system" TEXT NOT NULL,
    "prompt" JSONB NOT NULL,
    "toolCalls" JSONB NOT NULL,
    "usage" JSONB NOT NULL,
    "latencyMs" INTEGER,
    "error" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Turn_envelopeId_fkey" FOREIGN KEY ("envelopeId") REFERENCES "Envelope" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Turn_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Fork" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "conversationId" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "parentForkId" INTEGER,
    "startedBy" TEXT,
    "title" TEXT,
    "exitStrategy" TEXT,
    "summary" TEXT,
    "idleWarnings" INTEGER NOT NULL DEFAULT 0,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastActivityAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" DATETIME,
    CONSTRAINT "Fork_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Fork_parentForkId_fkey" FOREIGN KEY ("parentForkId") REFERENCES "Fork" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" JSONB NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "updatedBy" TEXT
);

-- CreateTable
CREATE TABLE "SettingChange" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "key" TEXT NOT NULL,
    "oldValue" JSONB,
    "newValue" JSONB NOT NULL,
    "changedBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Operator" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "OperatorSession" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "tokenHash" TEXT NOT NULL,
    "operatorId" INTEGER NOT NULL,
    "csrfToken" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "OperatorSession_operatorId_fkey" FOREIGN KEY ("operatorId") REFERENCES "Operator" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Conversation_activeForkId_key" ON "Conversation"("activeForkId");

-- CreateIndex
CREATE INDEX "Conversation_lastMessageAt_idx" ON "Conversation"("lastMessageAt");

-- CreateIndex
CREATE UNIQUE INDEX "Conversation_channel_platformChatId_key" ON "Conversation"("channel", "platformChatId");

-- CreateIndex
CREATE INDEX "Message_conversationId_sentAt_id_idx" ON "Message"("conversationId", "sentAt", "id");

-- CreateIndex
CREATE INDEX "Message_conversationId_forkId_sentAt_idx" ON "Message"("conversationId", "forkId", "sentAt");

-- CreateIndex
CREATE INDEX "Message_threadId_idx" ON "Message"("threadId");

-- CreateIndex
CREATE INDEX "Message_replyToMessageId_idx" ON "Message"("replyToMessageId");

-- CreateIndex
CREATE INDEX "Message_forkId_idx" ON "Message"("forkId");

-- CreateIndex
CREATE UNIQUE INDEX "Message_conversationId_platformMessageId_key" ON "Message"("conversationId", "platformMessageId");

-- CreateIndex
CREATE INDEX "MessageRevision_messageId_idx" ON "MessageRevision"("messageId");

-- CreateIndex
CREATE UNIQUE INDEX "Thread_rootMessageId_key" ON "Thread"("rootMessageId");

-- CreateIndex
CREATE INDEX "Thread_conversationId_lastMessageAt_idx" ON "Thread"("conversationId", "lastMessageAt");

-- CreateIndex
CREATE UNIQUE INDEX "InboundUpdate_channel_updateId_key" ON "InboundUpdate"("channel", "updateId");

-- CreateIndex
CREATE UNIQUE INDEX "Envelope_dedupeKey_key" ON "Envelope"("dedupeKey");

-- CreateIndex
CREATE INDEX "Envelope_status_deliverAt_idx" ON "Envelope"("status", "deliverAt");

-- CreateIndex
CREATE INDEX "Envelope_to_status_idx" ON "Envelope"("to", "status");

-- CreateIndex
CREATE INDEX "Envelope_replyToEnvelopeId_idx" ON "Envelope"("replyToEnvelopeId");

-- CreateIndex
CREATE INDEX "Envelope_conversationId_createdAt_idx" ON "Envelope"("conversationId", "createdAt");

-- CreateIndex
CREATE INDEX "Envelope_messageId_idx" ON "Envelope"("messageId");

-- CreateIndex
CREATE UNIQUE INDEX "Turn_envelopeId_key" ON "Turn"("envelopeId");

-- CreateIndex
CREATE INDEX "Turn_conversationId_createdAt_idx" ON "Turn"("conversationId", "createdAt");

-- CreateIndex
CREATE INDEX "Fork_conversationId_startedAt_idx" ON "Fork"("conversationId", "startedAt");

-- CreateIndex
CREATE INDEX "Fork_status_lastActivityAt_idx" ON "Fork"("status", "lastActivityAt");

-- CreateIndex
CREATE INDEX "SettingChange_createdAt_idx" ON "SettingChange"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Operator_name_key" ON "Operator"("name");

-- CreateIndex
CREATE UNIQUE INDEX "OperatorSession_tokenHash_key" ON "OperatorSession"("tokenHash");

-- CreateIndex
CREATE INDEX "OperatorSession_operatorId_idx" ON "OperatorSession"("operatorId");

-- CreateIndex
CREATE INDEX "OperatorSession_expiresAt_idx" ON "OperatorSession"("expiresAt");
