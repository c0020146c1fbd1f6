-- Full-text search over message text (GET /api/v1/search): a GIN index on the
-- text's tsvector (an expression index: no extra column to keep in step). The
-- 'simple' configuration (lowercase, no stemming) matches SQLite's unicode61
-- tokenizer, so both databases find the same messages. Queries must use the
-- same expression, to_tsvector('simple', "text"), for the index to apply.
CREATE INDEX "Message_text_search_idx" ON "Message" USING GIN (to_tsvector('simple', "text"));
