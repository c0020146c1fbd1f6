import { z } from "zod";

/**
 * The largest id a row can have. Id columns are 32-bit INTEGERs on PostgreSQL
 * (SQLite would take more, but no row there has one either): a larger id from a
 * stranger must be a 400, not a query that fails with a 500.
 */
export const MAX_ID = 2_147_483_647;

/** A row id in a JSON body. */
export const recordId = z.number().int().positive().max(MAX_ID);

/** A row id in a path or query string. */
export const recordIdParam = z.coerce.number().int().positive().max(MAX_ID);
