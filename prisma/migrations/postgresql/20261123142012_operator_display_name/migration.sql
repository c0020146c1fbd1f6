-- AlterTable
ALTER TABLE "Operator" ADD COLUMN     "displayName" TEXT;
