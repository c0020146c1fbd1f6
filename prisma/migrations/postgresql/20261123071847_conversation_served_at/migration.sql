-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "servedAt" TIMESTAMP(3);
