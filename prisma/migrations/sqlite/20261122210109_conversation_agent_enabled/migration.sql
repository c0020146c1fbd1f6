-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Conversation" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "channel" TEXT NOT NULL,
    "platformChatId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "title" TEXT,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "lastMessageAt" DATETIME,
    "lastReadAt" DATETIME,
    "agentEnabled" BOOLEAN NOT NULL DEFAULT true,
    "activeForkId" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Conversation_activeForkId_fkey" FOREIGN KEY ("activeForkId") REFERENCES "Fork" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Conversation" ("activeForkId", "channel", "createdAt", "generation", "id", "lastMessageAt", "lastReadAt", "platformChatId", "title", "type", "updatedAt") SELECT "activeForkId", "channel", "createdAt", "generation", "id", "lastMessageAt", "lastReadAt", "platformChatId", "title", "type", "updatedAt" FROM "Conversation";
DROP TABLE "Conversation";
ALTER TABLE "new_Conversation" RENAME TO "Conversation";
CREATE UNIQUE INDEX "Conversation_activeForkId_key" ON "Conversation"("activeForkId");
CREATE INDEX "Conversation_lastMessageAt_idx" ON "Conversation"("lastMessageAt");
CREATE UNIQUE INDEX "Conversation_channel_platformChatId_key" ON "Conversation"("channel", "platformChatId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
