-- AlterTable
ALTER TABLE "Turn" ADD COLUMN     "cachedInputTokens" INTEGER,
ADD COLUMN     "costUsd" DOUBLE PRECISION,
ADD COLUMN     "inputTokens" INTEGER,
ADD COLUMN     "outputTokens" INTEGER;

-- CreateIndex
CREATE INDEX "Turn_createdAt_idx" ON "Turn"("createdAt");
