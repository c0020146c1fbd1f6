-- Substring search for scripts written without spaces (Chinese, Japanese, Thai,
-- Lao, Khmer, Myanmar, and Korean: lib/search/query.ts UNSPACED_RANGES): a
-- trigram FTS5 index, so a word no message holds is answered from the index
-- instead of reading every message. Only messages whose text holds one of those
-- characters are indexed (the GLOB class below: the code point ranges of
-- UNSPACED_RANGES, U+0E00-U+0EFF, U+1000-U+109F, U+1100-U+11FF, U+1780-U+17FF,
-- U+2E80-U+2FDF, U+3000-U+9FFF, U+A960-U+A97F, U+AC00-U+D7FF, U+F900-U+FAFF,
-- U+FF65-U+FFDC, U+1B000-U+1B2FF, U+20000-U+3FFFF), so other messages cost
-- nothing more to store. External content over "Message"."text" (no copy of the
-- text), kept in step by triggers that test the same class; an external-content
-- table indexing only some rows must never be rebuilt with the rebuild command.
-- Written by hand: Prisma's schema language has no FTS5 tables.
CREATE VIRTUAL TABLE "MessageTrigram" USING fts5("text", content='Message', content_rowid='id', tokenize='trigram');

-- Index the messages already stored.
INSERT INTO "MessageTrigram"(rowid, "text") SELECT "id", "text" FROM "Message" WHERE "text" GLOB '*[฀-໿က-႟ᄀ-ᇿក-៿⺀-⿟　-鿿ꥠ-꥿가-퟿豈-﫿･-ￜ𛀀-𛋿𠀀-𿿿]*';

CREATE TRIGGER "Message_trigram_insert" AFTER INSERT ON "Message" WHEN new."text" GLOB '*[฀-໿က-႟ᄀ-ᇿក-៿⺀-⿟　-鿿ꥠ-꥿가-퟿豈-﫿･-ￜ𛀀-𛋿𠀀-𿿿]*' BEGIN
  INSERT INTO "MessageTrigram"(rowid, "text") VALUES (new."id", new."text");
END;

CREATE TRIGGER "Message_trigram_delete" AFTER DELETE ON "Message" WHEN old."text" GLOB '*[฀-໿က-႟ᄀ-ᇿក-៿⺀-⿟　-鿿ꥠ-꥿가-퟿豈-﫿･-ￜ𛀀-𛋿𠀀-𿿿]*' BEGIN
  INSERT INTO "MessageTrigram"("MessageTrigram", rowid, "text") VALUES ('delete', old."id", old."text");
END;

CREATE TRIGGER "Message_trigram_update" AFTER UPDATE OF "text" ON "Message" BEGIN
  INSERT INTO "MessageTrigram"("MessageTrigram", rowid, "text") SELECT 'delete', old."id", old."text" WHERE old."text" GLOB '*[฀-໿က-႟ᄀ-ᇿក-៿⺀-⿟　-鿿ꥠ-꥿가-퟿豈-﫿･-ￜ𛀀-𛋿𠀀-𿿿]*';
  INSERT INTO "MessageTrigram"(rowid, "text") SELECT new."id", new."text" WHERE new."text" GLOB '*[฀-໿က-႟ᄀ-ᇿក-៿⺀-⿟　-鿿ꥠ-꥿가-퟿豈-﫿･-ￜ𛀀-𛋿𠀀-𿿿]*';
END;
