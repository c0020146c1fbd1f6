-- AlterTable
ALTER TABLE "Operator" ADD COLUMN     "disabledAt" TIMESTAMP(3),
ADD COLUMN     "removedAt" TIMESTAMP(3),
ADD COLUMN     "role" TEXT NOT NULL DEFAULT 'admin';

-- AlterTable
ALTER TABLE "OperatorSession" ADD COLUMN     "userAgent" TEXT;

-- CreateTable
CREATE TABLE "OperatorInvitation" (
    "id" SERIAL NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "acceptedAt" TIMESTAMP(3),
    "operatorId" INTEGER,
    "revokedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OperatorInvitation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "OperatorInvitation_tokenHash_key" ON "OperatorInvitation"("tokenHash");

-- CreateIndex
CREATE INDEX "OperatorInvitation_expiresAt_idx" ON "OperatorInvitation"("expiresAt");

-- CreateIndex
CREATE INDEX "Operator_role_idx" ON "Operator"("role");
