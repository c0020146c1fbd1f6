// Operator accounts from the server's own shell, for when nobody can sign in:
//   npm run operator -- reset-password <name>   a new random password for <name>, printed once; their sessions end
//   npm run operator -- list                     every operator with role and status
// Works on the database itself (DATABASE_URL, default file:./data/switchboard.db), so it
// needs no running server and no API token: whoever can run it can read the database anyway.
import { randomBytes, scrypt } from "node:crypto";
import { promisify } from "node:util";
import { migrate, postgresTarget, providerOf, sqlitePath } from "../lib/db/migrations.mjs";
import { describeError, redactSecrets } from "./lib/cli.mjs";

const url = process.env.DATABASE_URL || "file:./data/switchboard.db";
const [command, name, ...extra] = process.argv.slice(2);

function fail(message, code = 1) {
  console.error(redactSecrets(message));
  process.exit(code);
}

/** The format of lib/auth/password.ts: "scrypt$<salt b64>$<hash b64>", node's scrypt defaults, 32-byte key. */
async function hashPassword(password) {
  const salt = randomBytes(16);
  const hash = await promisify(scrypt)(password, salt, 32);
  return `scrypt$${salt.toString("base64")}$${hash.toString("base64")}`;
}

/** One connection with `query(sql, params)` and `transaction(fn)`; `?` placeholders on both databases. */
async function connect() {
  if (providerOf(url) === "sqlite") {
    const { default: Sqlite } = await import("better-sqlite3");
    const db = new Sqlite(sqlitePath(url), { fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    const runStatement = (sql, params) => {
      db.prepare(sql).run(...params);
      return [];
    };
    const query = async (sql, params = []) => (/^\s*select/i.test(sql) ? db.prepare(sql).all(...params) : runStatement(sql, params));
    return {
      query,
      transaction: async (fn) => {
        db.exec("BEGIN IMMEDIATE");
        try {
          const result = await fn(query);
          db.exec("COMMIT");
          return result;
        } catch (error) {
          db.exec("ROLLBACK");
          throw error;
        }
      },
      close: async () => db.close(),
    };
  }
  const { default: pg } = await import("pg");
  const { connectionString, schema } = postgresTarget(url);
  const client = new pg.Client({ connectionString, options: `-c search_path="${schema.replaceAll('"', '""')}"` });
  await client.connect();
  const query = async (sql, params = []) => {
    let n = 0;
    return (
      await client.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows;
  };
  return {
    query,
    transaction: async (fn) => {
      await client.query("BEGIN");
      try {
        const result = await fn(query);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    },
    close: () => client.end(),
  };
}

const status = (row) => (row.removedAt ? "removed" : row.disabledAt ? "disabled" : "active");

async function resetPassword(db) {
  if (!name || extra.length) fail("usage: npm run operator -- reset-password <name>", 2);
  const password = randomBytes(15).toString("base64url");
  const passwordHash = await hashPassword(password);
  const operator = await db.transaction(async (query) => {
    const [row] = await query(`SELECT id, name, role, "disabledAt", "removedAt" FROM "Operator" WHERE name = ?`, [name]);
    if (!row || row.removedAt) return row ?? null;
    await query(`UPDATE "Operator" SET "passwordHash" = ? WHERE id = ?`, [passwordHash, row.id]);
    // Whoever signed in with the old password is signed out.
    await query(`DELETE FROM "OperatorSession" WHERE "operatorId" = ?`, [row.id]);
    return row;
  });
  if (!operator) fail(`no operator named ${name} (npm run operator -- list shows them)`);
  if (operator.removedAt) fail(`${name} was removed; removed operators cannot sign in again (invite them anew)`);
  console.log(`New password for ${name} (${operator.role}): ${password}`);
  console.log("Sign in with it, then change it under Settings → Your account. Their other sessions have ended.");
  if (operator.disabledAt) console.log(`Note: ${name} is disabled; an admin enables them on the Operators page.`);
}

async function list(db) {
  const rows = await db.query(`SELECT name, "displayName", role, "disabledAt", "removedAt" FROM "Operator" ORDER BY id`);
  if (rows.length === 0) console.log("no operators yet: open the console to set up the first one");
  for (const row of rows) console.log(`${row.name}\t${row.role}\t${status(row)}${row.displayName ? `\t${row.displayName}` : ""}`);
}

const commands = { "reset-password": resetPassword, list };
if (!commands[command]) fail("usage: npm run operator -- reset-password <name> | list", 2);
try {
  // The same schema the server would run on (npm start migrates the same way).
  await migrate(url);
  const db = await connect();
  try {
    await commands[command](db);
  } finally {
    await db.close();
  }
} catch (error) {
  fail(`operator ${command} failed: ${describeError(error)}`);
}
