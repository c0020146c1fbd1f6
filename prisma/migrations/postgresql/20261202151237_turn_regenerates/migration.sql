-- AlterTable
ALTER TABLE "Turn" ADD COLUMN     "regeneratesTurnId" INTEGER;
