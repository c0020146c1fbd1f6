-- CreateIndex
CREATE INDEX "Envelope_status_createdAt_idx" ON "Envelope"("status", "createdAt");
