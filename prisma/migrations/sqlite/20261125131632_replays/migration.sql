-- CreateTable
CREATE TABLE "Replay" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "turnId" INTEGER NOT NULL,
    "conversationId" INTEGER NOT NULL,
    "runId" INTEGER,
    "mode" TEXT NOT NULL,
    "variant" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "error" TEXT,
    "model" TEXT,
    "system" TEXT,
    "prompt" JSONB,
    "output" JSONB,
    "usage" JSONB,
    "latencyMs" INTEGER,
    "inputTokens" INTEGER,
    "outputTokens" INTEGER,
    "costUsd" REAL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    CONSTRAINT "Replay_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "Turn" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Replay_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Replay_runId_fkey" FOREIGN KEY ("runId") REFERENCES "DatasetRun" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Dataset" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "turnIds" JSONB NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "DatasetRun" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "datasetId" INTEGER NOT NULL,
    "mode" TEXT NOT NULL,
    "variant" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "total" INTEGER NOT NULL,
    "error" TEXT,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    CONSTRAINT "DatasetRun_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "Dataset" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Replay_turnId_id_idx" ON "Replay"("turnId", "id");

-- CreateIndex
CREATE INDEX "Replay_conversationId_idx" ON "Replay"("conversationId");

-- CreateIndex
CREATE INDEX "Replay_runId_id_idx" ON "Replay"("runId", "id");

-- CreateIndex
CREATE INDEX "DatasetRun_datasetId_id_idx" ON "DatasetRun"("datasetId", "id");
