-- AlterTable
ALTER TABLE "Message" ADD COLUMN "senderLanguage" TEXT;

-- CreateTable
CREATE TABLE "ConversationNote" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "conversationId" INTEGER NOT NULL,
    "operatorId" INTEGER NOT NULL,
    "operatorName" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ConversationNote_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SavedReply" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "scope" TEXT NOT NULL,
    "shortcut" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- AlterTable (edited by hand: ADD COLUMN instead of rebuilding the Conversation table)
ALTER TABLE "Conversation" ADD COLUMN "status" TEXT NOT NULL DEFAULT 'open';
ALTER TABLE "Conversation" ADD COLUMN "snoozedUntil" DATETIME;
ALTER TABLE "Conversation" ADD COLUMN "statusChangedAt" DATETIME;
ALTER TABLE "Conversation" ADD COLUMN "assigneeId" INTEGER;
ALTER TABLE "Conversation" ADD COLUMN "waitingSince" DATETIME;

-- CreateIndex
CREATE INDEX "Conversation_status_lastMessageAt_idx" ON "Conversation"("status", "lastMessageAt");
CREATE INDEX "Conversation_assigneeId_status_idx" ON "Conversation"("assigneeId", "status");
CREATE INDEX "Conversation_status_snoozedUntil_idx" ON "Conversation"("status", "snoozedUntil");

-- CreateIndex
CREATE INDEX "ConversationNote_conversationId_createdAt_idx" ON "ConversationNote"("conversationId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "SavedReply_scope_shortcut_key" ON "SavedReply"("scope", "shortcut");

-- CreateIndex
CREATE INDEX "Message_senderPlatformId_idx" ON "Message"("senderPlatformId");
