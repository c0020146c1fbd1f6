-- AlterTable
ALTER TABLE "Replay" ADD COLUMN "createdBy" TEXT;

-- CreateIndex
CREATE INDEX "Replay_createdAt_idx" ON "Replay"("createdAt");

-- CreateIndex
CREATE INDEX "Replay_createdBy_createdAt_idx" ON "Replay"("createdBy", "createdAt");
