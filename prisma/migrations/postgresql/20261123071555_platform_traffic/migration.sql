-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "membership" TEXT,
ADD COLUMN     "membershipChangedAt" TIMESTAMP(3),
ADD COLUMN     "parentConversationId" INTEGER,
ADD COLUMN     "topicId" TEXT,
ADD COLUMN     "topicName" TEXT;

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "deletedAt" TIMESTAMP(3),
ADD COLUMN     "forwardedFrom" TEXT,
ADD COLUMN     "replyToChatTitle" TEXT,
ADD COLUMN     "senderRole" TEXT,
ADD COLUMN     "viaBot" TEXT;

-- CreateIndex
CREATE INDEX "Conversation_parentConversationId_idx" ON "Conversation"("parentConversationId");
