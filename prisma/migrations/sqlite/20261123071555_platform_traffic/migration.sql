-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN "membership" TEXT;
ALTER TABLE "Conversation" ADD COLUMN "membershipChangedAt" DATETIME;
ALTER TABLE "Conversation" ADD COLUMN "parentConversationId" INTEGER;
ALTER TABLE "Conversation" ADD COLUMN "topicId" TEXT;
ALTER TABLE "Conversation" ADD COLUMN "topicName" TEXT;

-- AlterTable
ALTER TABLE "Message" ADD COLUMN "deletedAt" DATETIME;
ALTER TABLE "Message" ADD COLUMN "forwardedFrom" TEXT;
ALTER TABLE "Message" ADD COLUMN "replyToChatTitle" TEXT;
ALTER TABLE "Message" ADD COLUMN "senderRole" TEXT;
ALTER TABLE "Message" ADD COLUMN "viaBot" TEXT;

-- CreateIndex
CREATE INDEX "Conversation_parentConversationId_idx" ON "Conversation"("parentConversationId");
