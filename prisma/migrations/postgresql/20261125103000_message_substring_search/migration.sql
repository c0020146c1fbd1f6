-- Substring search for scripts written without spaces (Chinese, Japanese, Thai,
-- Lao, Khmer, Myanmar, and Korean: lib/search/query.ts UNSPACED_RANGES): a GIN
-- index of every character and every pair of characters of the text
-- (message_grams), so a word of any length, two-character Chinese and Japanese
-- words included, is looked up in the index instead of read from every message
-- (pg_trgm would need three characters, and an extension). Only messages whose
-- text holds one of those characters are indexed (the partial predicate below:
-- the same code point ranges); queries must repeat the predicate and the
-- expression message_grams("text") for the index to apply.
-- Written by hand: Prisma's schema language has no expression indexes.
-- Characters, then the pairs at even and at odd offsets (regular expressions walk
-- the text once; indexing by position would walk it again for each character).
-- Repeats are left in: GIN keeps each key once.
CREATE FUNCTION "message_grams"(t text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT string_to_array(lower(t), NULL)
    || ARRAY(SELECT (regexp_matches(lower(t), '..', 'g'))[1])
    || ARRAY(SELECT (regexp_matches(substr(lower(t), 2), '..', 'g'))[1])
$$;

CREATE INDEX "Message_text_grams_idx" ON "Message" USING GIN ("message_grams"("text"))
  WHERE "text" ~ '[\u0E00-\u0EFF\u1000-\u109F\u1100-\u11FF\u1780-\u17FF\u2E80-\u2FDF\u3000-\u9FFF\uA960-\uA97F\uAC00-\uD7FF\uF900-\uFAFF\uFF65-\uFFDC\U0001B000-\U0001B2FF\U00020000-\U0003FFFF]';
