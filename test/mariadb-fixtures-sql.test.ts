/**
 * The SQL of every shared fixture with row events, run by a real MariaDB: each table is created from
 * what its TABLE_MAP says (test/support/table-sql.ts) in a scratch database (`fx_` before the fixture's
 * schema, so no table of the server's own is touched), then the rows' statements run against it under
 * strict mode, which refuses a literal that the server does not read as a value of the column's type.
 * A TABLE_MAP without names gets them from column hints (`c1`, `c2`, …, integers signed), as a caller
 * who knows no more would give them. What is left out is counted and checked to be only what must be.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BinlogError } from '../runtime/core/errors.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import { textOf } from '../runtime/io/transactions.js';
import type { HintFn } from '../runtime/values/column.js';
import { SCRIPT_HEADER } from '../tools/sql-script.js';
import { rowKind } from '../protocol/row-kinds.js';
import { SqlContext, SqlError, toSql } from '../tools/sql.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';
import { describeWithServer, type MariadbServer, startMariadb } from './support/mariadb.js';
import { createTableSql } from './support/table-sql.js';

/** Row statements run per fixture at most: enough for every literal form, bounded for the big logs. */
const CAP = 200;
const HINTS: HintFn = (_table, column) => ({ name: `c${column.index + 1}`, unsigned: false });
const name = (t: unknown) => textOf(t) ?? Buffer.from(t as Uint8Array).toString('latin1');

interface Run {
  script: string[];
  statements: number;
  /** What was left out, by reason. */
  left: Map<string, number>;
}

/** The reasons a fixture's statement may be left out: what the tools refuse and what MariaDB cannot run. */
const LEFT_OUT_REASONS = [
  /a table without (the members of (ENUM|SET) column|a type for column \(column type 242\))/,
  /a row event of such a table/,
  /MySQL's CAST/,
  /refused: (a JSON … scalar has no JSON text|a partial JSON update|its row images were kept as bytes \(v0 row images)/,
];
const LEFT_OUT = new RegExp(`^(${LEFT_OUT_REASONS.map((r) => r.source).join('|')})`);
const count = (m: Map<string, number>, reason: string) => m.set(reason, (m.get(reason) ?? 0) + 1);

/** The fixture's row events as statements, after the tables they need; undefined without row events. */
function fixtureScript(events: BinlogEvent[]): Run | undefined {
  if (!events.some((e) => rowKind(e.type))) return undefined;
  const context = new SqlContext({ columnHints: HINTS });
  const run: Run = { script: [], statements: 0, left: new Map() };
  const schemas = new Set<string>();
  const created = new Map<string, string>();
  const unusable = new Set<number>();
  for (const event of events) {
    if (event.type === 'TABLE_MAP_EVENT') {
      const map = event;
      const schema = `fx_${name(map.schemaName)}`;
      context.observe({ ...event, schemaName: schema });
      const table = `${schema}.${name(map.tableName)}`;
      const create = createTableSql(context.tables.get(map.tableId)!, schema, name(map.tableName));
      if ('missing' in create) {
        unusable.add(map.tableId);
        count(run.left, `a table without ${create.missing.replace(/ column \S+/, ' column')}`);
        continue;
      }
      unusable.delete(map.tableId);
      if (!schemas.has(schema)) run.script.push(`CREATE DATABASE IF NOT EXISTS \`${schema}\``);
      schemas.add(schema);
      if (created.get(table) !== create.sql) run.script.push(create.sql);
      created.set(table, create.sql);
    } else if (!rowKind(event.type)) context.observe(event);
    else if (unusable.has((event as { tableId: number }).tableId)) count(run.left, 'a row event of such a table');
    else if (run.statements < CAP) statementsOf(event, context, run);
  }
  run.script.push(...[...schemas].map((s) => `DROP DATABASE \`${s}\``));
  return run;
}

function statementsOf(event: BinlogEvent, context: SqlContext, run: Run): void {
  let statements: string[];
  try {
    statements = toSql(event, context);
  } catch (e) {
    if (!(e instanceof SqlError)) throw e;
    count(
      run.left,
      `refused: ${e.message.replace(/ \(in .*$| \[.*$/, '').replace(/JSON \w+ scalar/, 'JSON … scalar')}`,
    );
    return;
  }
  for (const s of statements) {
    // MySQL's JSON type: MariaDB has no CAST(… AS JSON) to parse.
    if (/ AS JSON\)/.test(s)) count(run.left, "MySQL's CAST(… AS JSON)");
    else (run.script.push(s), run.statements++);
  }
}

function decoded(path: string): BinlogEvent[] | undefined {
  try {
    return decodeBinlog(readFileSync(path), { columnHints: HINTS });
  } catch (e) {
    if (e instanceof BinlogError) return undefined; // damaged on purpose: fixtures.test.ts checks each
    throw e;
  }
}

describeWithServer('the SQL of the fixtures, run by MariaDB', () => {
  describeWithFixtures('every fixture with row events', () => {
    let server: MariadbServer;
    const runs = new Map<string, Run>();
    beforeAll(async () => {
      server = await startMariadb();
    }, 120_000);
    afterAll(() => server?.stop());

    for (const f of fixtures()) {
      const events = decoded(f.path);
      const run = events && fixtureScript(events);
      if (!run) continue;
      runs.set(f.name, run);
      it(
        f.name,
        async () => {
          const strict = "SET sql_mode = 'STRICT_ALL_TABLES,NO_AUTO_VALUE_ON_ZERO';\n";
          await server.sql(SCRIPT_HEADER + strict + run.script.map((s) => `${s};\n`).join(''));
        },
        60_000,
      );
    }

    it('run most statements, and leave out only what MariaDB cannot have or the SQL refuses by design', () => {
      const all = [...runs.values()];
      const left = new Map<string, number>();
      for (const r of all) for (const [k, n] of r.left) left.set(k, (left.get(k) ?? 0) + n);
      const ran = all.reduce((n, r) => n + r.statements, 0);
      process.stderr.write(
        `fixture SQL: ${runs.size} fixtures, ${ran} statements run; left out: ` +
          `${JSON.stringify(Object.fromEntries(left))}\n`,
      );
      expect(runs.size).toBeGreaterThan(60);
      expect(ran).toBeGreaterThan(1000);
      for (const reason of left.keys()) expect(reason).toMatch(LEFT_OUT);
    });
  });
});
