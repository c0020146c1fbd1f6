-- AlterTable
ALTER TABLE "MediaBlob" ADD COLUMN "modelCopy" BLOB;
ALTER TABLE "MediaBlob" ADD COLUMN "modelCopyType" TEXT;
