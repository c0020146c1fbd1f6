-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "agentEnabled" BOOLEAN NOT NULL DEFAULT true;
