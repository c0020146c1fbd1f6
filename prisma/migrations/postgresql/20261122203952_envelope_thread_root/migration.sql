-- AlterTable
ALTER TABLE "Envelope" ADD COLUMN     "threadRootId" INTEGER;

-- CreateIndex
CREATE INDEX "Envelope_threadRootId_idx" ON "Envelope"("threadRootId");
