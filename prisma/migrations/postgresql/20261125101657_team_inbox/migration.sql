-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "assigneeId" INTEGER,
ADD COLUMN     "snoozedUntil" TIMESTAMP(3),
ADD COLUMN     "status" TEXT NOT NULL DEFAULT 'open',
ADD COLUMN     "statusChangedAt" TIMESTAMP(3),
ADD COLUMN     "waitingSince" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "senderLanguage" TEXT;

-- CreateTable
CREATE TABLE "ConversationNote" (
    "id" SERIAL NOT NULL,
    "conversationId" INTEGER NOT NULL,
    "operatorId" INTEGER NOT NULL,
    "operatorName" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ConversationNote_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SavedReply" (
    "id" SERIAL NOT NULL,
    "scope" TEXT NOT NULL,
    "shortcut" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SavedReply_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ConversationNote_conversationId_createdAt_idx" ON "ConversationNote"("conversationId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "SavedReply_scope_shortcut_key" ON "SavedReply"("scope", "shortcut");

-- CreateIndex
CREATE INDEX "Conversation_status_lastMessageAt_idx" ON "Conversation"("status", "lastMessageAt");

-- CreateIndex
CREATE INDEX "Conversation_assigneeId_status_idx" ON "Conversation"("assigneeId", "status");

-- CreateIndex
CREATE INDEX "Conversation_status_snoozedUntil_idx" ON "Conversation"("status", "snoozedUntil");

-- CreateIndex
CREATE INDEX "Message_senderPlatformId_idx" ON "Message"("senderPlatformId");

-- AddForeignKey
ALTER TABLE "ConversationNote" ADD CONSTRAINT "ConversationNote_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
