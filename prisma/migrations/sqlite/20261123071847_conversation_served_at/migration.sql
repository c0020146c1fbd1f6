-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN "servedAt" DATETIME;
