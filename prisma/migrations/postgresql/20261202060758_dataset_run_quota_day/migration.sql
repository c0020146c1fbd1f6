-- AlterTable
ALTER TABLE "DatasetRun" ADD COLUMN     "quotaDay" TEXT;
