-- AlterTable
ALTER TABLE "Message" ADD COLUMN "deletedBy" TEXT;

-- AlterTable
ALTER TABLE "MessageRevision" ADD COLUMN "editedBy" TEXT;
