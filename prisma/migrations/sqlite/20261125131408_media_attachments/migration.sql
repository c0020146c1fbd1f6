-- AlterTable
ALTER TABLE "Message" ADD COLUMN "mediaGroupId" TEXT;
ALTER TABLE "Message" ADD COLUMN "shared" JSONB;

-- CreateTable
CREATE TABLE "Attachment" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "messageId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "kind" TEXT NOT NULL,
    "mimeType" TEXT,
    "fileName" TEXT,
    "sizeBytes" INTEGER,
    "width" INTEGER,
    "height" INTEGER,
    "durationSeconds" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "error" TEXT,
    "source" TEXT NOT NULL,
    "sourceRef" TEXT,
    "platformFileUniqueId" TEXT,
    "details" JSONB,
    "blobSha256" TEXT,
    "transcript" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Attachment_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "MediaBlob" (
    "sha256" TEXT NOT NULL PRIMARY KEY,
    "mimeType" TEXT NOT NULL,
    "sizeBytes" INTEGER NOT NULL,
    "data" BLOB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "Attachment_messageId_idx" ON "Attachment"("messageId");

-- CreateIndex
CREATE INDEX "Attachment_status_nextAttemptAt_idx" ON "Attachment"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "Attachment_blobSha256_idx" ON "Attachment"("blobSha256");
