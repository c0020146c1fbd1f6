-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN "botId" INTEGER;

-- CreateTable
CREATE TABLE "Bot" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "platform" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "adapter" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "username" TEXT,
    "pictureUrl" TEXT,
    "platformBotId" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "credentials" TEXT,
    "tokenHint" TEXT,
    "webhookSecret" TEXT,
    "webhookUrl" TEXT,
    "instructions" TEXT,
    "model" TEXT,
    "modelApiKey" TEXT,
    "settings" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "removedAt" DATETIME
);

-- CreateIndex
CREATE UNIQUE INDEX "Bot_adapter_key" ON "Bot"("adapter");

-- CreateIndex
CREATE INDEX "Bot_status_idx" ON "Bot"("status");

-- CreateIndex
CREATE INDEX "Conversation_botId_lastMessageAt_idx" ON "Conversation"("botId", "lastMessageAt");
