-- AlterTable
ALTER TABLE "Operator" ADD COLUMN "botIds" JSONB;
