-- Full-text search over message text (GET /api/v1/search): an FTS5 index over
-- "Message"."text" that stores no copy of the text (external content), kept in
-- step by triggers. Written by hand: Prisma's schema language has no FTS5 tables.
CREATE VIRTUAL TABLE "MessageSearch" USING fts5("text", content='Message', content_rowid='id', tokenize='unicode61 remove_diacritics 2');

-- Index the messages already stored.
INSERT INTO "MessageSearch"("MessageSearch") VALUES ('rebuild');

CREATE TRIGGER "Message_search_insert" AFTER INSERT ON "Message" BEGIN
  INSERT INTO "MessageSearch"(rowid, "text") VALUES (new."id", new."text");
END;

CREATE TRIGGER "Message_search_delete" AFTER DELETE ON "Message" BEGIN
  INSERT INTO "MessageSearch"("MessageSearch", rowid, "text") VALUES ('delete', old."id", old."text");
END;

CREATE TRIGGER "Message_search_update" AFTER UPDATE OF "text" ON "Message" BEGIN
  INSERT INTO "MessageSearch"("MessageSearch", rowid, "text") VALUES ('delete', old."id", old."text");
  INSERT INTO "MessageSearch"(rowid, "text") VALUES (new."id", new."text");
END;
