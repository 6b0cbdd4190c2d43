/**
 * The workload the snapshot tests run against a real MariaDB: three tables (a primary key over many column
 * types, a composite key, none), their rows, the writer's small transactions and the one ALTER TABLE that
 * comes during the snapshot, and each table read whole in a total order to compare a copy with its source.
 */
import type { MariadbServer } from './mariadb.js';

export const TABLES = `
  CREATE DATABASE app;
  CREATE TABLE app.pk (id INT PRIMARY KEY, name VARCHAR(40) CHARACTER SET utf8mb4, amount DECIMAL(12,2),
    at DATETIME(6), ts TIMESTAMP NULL, f FLOAT, d DOUBLE, u BIGINT UNSIGNED, e ENUM('a','b','c'), s SET('x','y'),
    b BIT(3), blob_ BLOB, l VARCHAR(10) CHARACTER SET latin1);
  CREATE TABLE app.comp (region CHAR(2), seq INT, v SMALLINT, note TEXT, PRIMARY KEY (region, seq));
  CREATE TABLE app.bare (k INT, v VARCHAR(20));
`;

/** The tables by name, and the primary key columns of each (none for `bare`). */
export const KEYS: Record<string, string[]> = { pk: ['id'], comp: ['region', 'seq'], bare: [] };

/** The rows of the three tables, a third each: the key tables' by their keys, the bare one's values repeating. */
export function seedSql(rows: number): string[] {
  const third = Math.floor(rows / 3);
  const out: string[] = [];
  for (let start = 0; start < third; start += 1000) {
    const n = Math.min(1000, third - start);
    const ids = Array.from({ length: n }, (_, i) => start + i);
    out.push(
      'INSERT INTO app.pk VALUES ' +
        ids
          .map(
            (i) =>
              `(${i}, 'n${i} ✓😀', ${i}.25, '2024-01-02 03:04:05.${String(i % 1e6).padStart(6, '0')}', ` +
              `'2020-06-01 12:00:00', ${i / 7}, ${i / 3}, ${18446744073709551615n - BigInt(i)}, ` +
              `'${'abc'[i % 3]}', '${['', 'x', 'x,y'][i % 3]}', ${i % 8}, ` +
              `x'${(i % 256).toString(16).padStart(2, '0')}00', 'é${i}')`,
          )
          .join(','),
      'INSERT INTO app.comp VALUES ' +
        ids.map((i) => `('${['eu', 'us', 'as'][i % 3]}', ${i}, ${(i % 60000) - 30000}, 'note ${i}')`).join(','),
      'INSERT INTO app.bare VALUES ' + ids.map((i) => `(${i % 100}, 'v${i % 50}')`).join(','),
    );
  }
  return out;
}

/**
 * The writer's `i`th small transaction: an insert, an update and a delete over the three tables. Its keys
 * stay within the seeded rows of a table of `rows` rows in all, and never repeat an insert's key.
 */
export function writerTransaction(i: number, rows: number): string {
  return (
    `BEGIN; INSERT INTO app.comp VALUES ('zz', ${rows + i}, 1, 'new'); ` +
    `UPDATE app.comp SET v = v + 1 WHERE region = 'eu' AND seq = ${i * 3}; ` +
    `DELETE FROM app.bare WHERE k = ${i % 100} LIMIT 1; UPDATE app.pk SET amount = -amount WHERE id = ${i * 5}; ` +
    `COMMIT;`
  );
}

/**
 * The ALTER TABLE during the snapshot, run in database `app`: as mariadb-binlog's, --database selects
 * statements by their default database.
 */
export const ALTER = 'ALTER TABLE pk ADD COLUMN extra INT NOT NULL DEFAULT 7';

/** The `i`th change of the column the ALTER added, with another of the same rows. */
export const afterAlter = (i: number) => `UPDATE app.pk SET extra = ${i}, name = 'changed ${i}' WHERE id = ${i * 7}`;

/** Each table's rows in a total order: by key, the table without one by both its columns. */
const ORDER: Record<string, string> = { pk: 'id', comp: 'region, seq', bare: 'k, v' };

/** A table of database `db` (as `app`'s tables) read whole, in a total order. */
export const wholeTable = (server: MariadbServer, table: string, db = 'app') =>
  server.query(`SELECT * FROM ${db}.${table} ORDER BY ${ORDER[table]}`);
