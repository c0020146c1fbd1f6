import { z } from "zod";

/**
 * The largest id a row can have. Id columns are 32-bit INTEGERs on PostgreSQL
 * (SQLite would take more, but no row there has one either): a larger id from a
 * stranger must be a 400, not a query that fails with a 500.
 */
export const MAX_ID = 2_147_483_647;

const NOT_AN_ID = "must be an id: a whole number of 1 or more";

/** A row id in a JSON body. */
export const recordId = z.number({ error: NOT_AN_ID }).int(NOT_AN_ID).positive(NOT_AN_ID).max(MAX_ID, "no such id (too large)");

/** A row id in a path or query string. */
export const recordIdParam = z.coerce.number({ error: NOT_AN_ID }).int(NOT_AN_ID).positive(NOT_AN_ID).max(MAX_ID, "no such id (too large)");
