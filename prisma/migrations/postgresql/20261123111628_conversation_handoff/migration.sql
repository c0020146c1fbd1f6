-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "handoffAssignedAt" TIMESTAMP(3),
ADD COLUMN     "handoffOperator" TEXT,
ADD COLUMN     "handoffReason" TEXT,
ADD COLUMN     "handoffRequestedAt" TIMESTAMP(3),
ADD COLUMN     "handoffState" TEXT,
ADD COLUMN     "handoffTimedOutAt" TIMESTAMP(3),
ADD COLUMN     "lastHandoffFrom" TIMESTAMP(3),
ADD COLUMN     "lastHandoffOperator" TEXT,
ADD COLUMN     "lastHandoffUntil" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Conversation_handoffState_handoffRequestedAt_idx" ON "Conversation"("handoffState", "handoffRequestedAt");
