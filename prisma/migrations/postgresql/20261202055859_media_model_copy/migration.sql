-- AlterTable
ALTER TABLE "MediaBlob" ADD COLUMN     "modelCopy" BYTEA,
ADD COLUMN     "modelCopyType" TEXT;
