-- AlterTable
ALTER TABLE "OperatorSession" ADD COLUMN "userAgent" TEXT;

-- CreateTable
CREATE TABLE "OperatorInvitation" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "tokenHash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "acceptedAt" DATETIME,
    "operatorId" INTEGER,
    "revokedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Operator" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "displayName" TEXT,
    "passwordHash" TEXT NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'admin',
    "disabledAt" DATETIME,
    "removedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_Operator" ("createdAt", "displayName", "id", "name", "passwordHash") SELECT "createdAt", "displayName", "id", "name", "passwordHash" FROM "Operator";
DROP TABLE "Operator";
ALTER TABLE "new_Operator" RENAME TO "Operator";
CREATE UNIQUE INDEX "Operator_name_key" ON "Operator"("name");
CREATE INDEX "Operator_role_idx" ON "Operator"("role");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "OperatorInvitation_tokenHash_key" ON "OperatorInvitation"("tokenHash");

-- CreateIndex
CREATE INDEX "OperatorInvitation_expiresAt_idx" ON "OperatorInvitation"("expiresAt");
