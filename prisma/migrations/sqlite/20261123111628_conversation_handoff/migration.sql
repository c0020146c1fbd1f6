-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN "handoffAssignedAt" DATETIME;
ALTER TABLE "Conversation" ADD COLUMN "handoffOperator" TEXT;
ALTER TABLE "Conversation" ADD COLUMN "handoffReason" TEXT;
ALTER TABLE "Conversation" ADD COLUMN "handoffRequestedAt" DATETIME;
ALTER TABLE "Conversation" ADD COLUMN "handoffState" TEXT;
ALTER TABLE "Conversation" ADD COLUMN "handoffTimedOutAt" DATETIME;
ALTER TABLE "Conversation" ADD COLUMN "lastHandoffFrom" DATETIME;
ALTER TABLE "Conversation" ADD COLUMN "lastHandoffOperator" TEXT;
ALTER TABLE "Conversation" ADD COLUMN "lastHandoffUntil" DATETIME;

-- CreateIndex
CREATE INDEX "Conversation_handoffState_handoffRequestedAt_idx" ON "Conversation"("handoffState", "handoffRequestedAt");
