-- AlterTable
ALTER TABLE "Fork" ADD COLUMN     "baseMessageId" INTEGER;
