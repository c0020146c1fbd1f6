-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "botId" INTEGER;

-- CreateTable
CREATE TABLE "Bot" (
    "id" SERIAL NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "removedAt" TIMESTAMP(3),

    CONSTRAINT "Bot_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Bot_adapter_key" ON "Bot"("adapter");

-- CreateIndex
CREATE INDEX "Bot_status_idx" ON "Bot"("status");

-- CreateIndex
CREATE INDEX "Conversation_botId_lastMessageAt_idx" ON "Conversation"("botId", "lastMessageAt");
