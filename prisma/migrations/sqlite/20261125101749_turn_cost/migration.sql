-- AlterTable
ALTER TABLE "Turn" ADD COLUMN "cachedInputTokens" INTEGER;
ALTER TABLE "Turn" ADD COLUMN "costUsd" REAL;
ALTER TABLE "Turn" ADD COLUMN "inputTokens" INTEGER;
ALTER TABLE "Turn" ADD COLUMN "outputTokens" INTEGER;

-- CreateIndex
CREATE INDEX "Turn_createdAt_idx" ON "Turn"("createdAt");
