-- CreateIndex
CREATE INDEX "Envelope_conversationId_status_idx" ON "Envelope"("conversationId", "status");
