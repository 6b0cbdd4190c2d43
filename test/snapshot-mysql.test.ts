/**
 * The MySQL snapshot method against a fake MySQL 8.0 / 8.4 server speaking the protocol: FLUSH TABLES
 * WITH READ LOCK is held only around START TRANSACTION WITH CONSISTENT SNAPSHOT and reading the position
 * (SHOW MASTER STATUS, or SHOW BINARY LOG STATUS where 8.4 refuses the old name), UNLOCK TABLES comes
 * before any row, and the point is the position read under the lock.
 */
import { afterEach, expect, it } from 'vitest';
import { ServerError } from '../runtime/core/errors.js';
import { takeSnapshot } from '../snapshot/index.js';
import { COM_QUERY, err, OK, resultRows, startFakePrimary, type FakePrimary } from './support/fake-primary.js';

const GTIDS = '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5,\n4e11fa47-71ca-11e1-9e33-c80aa9429562:1-2';
const STATUS_COLUMNS = ['File', 'Position', 'Binlog_Do_DB', 'Binlog_Ignore_DB', 'Executed_Gtid_Set'];
const STATUS = [['binlog.000042', '1234', '', '', GTIDS]];
/** MySQL's ER_PARSE_ERROR (8.4 no longer knows SHOW MASTER STATUS) and ER_SPECIFIC_ACCESS_DENIED_ERROR. */
const PARSE_ERROR = 1064;
const ACCESS_DENIED = 1227;

interface Server {
  /** `status`: the answer to the position's statement; `old`: whether SHOW MASTER STATUS is still known (8.0). */
  status?: string[][];
  old?: boolean;
  ftwrl?: Buffer[];
  /** CURRENT_ROLE()'s answer (default NONE), and the grants of SHOW GRANTS (default the three needed, to the user). */
  role?: string;
  grants?: string[];
  /** The grants SHOW GRANTS … USING the active roles adds. */
  roleGrants?: string[];
}

const ALL_NEEDED = 'GRANT RELOAD, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `u`@`%`';

let fake: FakePrimary | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A server of one table d.t (id, v), rows 1 to 3 in keyset pages: `log` gets each statement and each page. */
async function mysql(server: Server, log: string[]): Promise<number> {
  const rows = [
    ['1', 'a'],
    ['2', 'b'],
    ['3', 'c'],
  ];
  const answers: [RegExp, () => Buffer[]][] = [
    [/^SELECT VERSION/, () => resultRows(['v'], [['8.0.36']])],
    [/^SELECT CURRENT_ROLE/, () => resultRows(['r'], [[server.role ?? 'NONE']])],
    [/^SHOW GRANTS FOR CURRENT_USER\(\) USING /, () => grants([...grantsOf(server), ...(server.roleGrants ?? [])])],
    [/^SHOW GRANTS$/, () => grants(grantsOf(server))],
    [/information_schema\.TABLES/, () => resultRows(['s', 'n'], [['d', 't']])],
    [/^SHOW CREATE TABLE/, () => resultRows(['Table', 'Create Table'], [['t', 'CREATE TABLE `t` (id, v)']])],
    [/^FLUSH TABLES WITH READ LOCK/, () => server.ftwrl ?? [OK]],
    [
      /^SHOW MASTER STATUS/,
      () => (server.old ? resultRows(STATUS_COLUMNS, server.status ?? STATUS) : [err(PARSE_ERROR, '42000', 'syntax')]),
    ],
    [/^SHOW BINARY LOG STATUS/, () => resultRows(STATUS_COLUMNS, server.status ?? STATUS)],
    [/information_schema\.COLUMNS/, () => resultRows(['c'], [['id'], ['v']])],
    [/information_schema\.STATISTICS/, () => resultRows(['c'], [['id']])],
    [/LIMIT 0$/, () => resultRows(['id', 'v'], [])],
    [/WHERE .* LIMIT 2$/, () => resultRows(['id', 'v'], rows.slice(2))],
    [/LIMIT 2$/, () => resultRows(['id', 'v'], rows.slice(0, 2))],
  ];
  fake = await startFakePrimary('8.0.36', (c) => {
    if (c.code !== COM_QUERY) return c.answer([OK]);
    const query = c.body.toString();
    log.push(query);
    c.answer(answers.find(([re]) => re.test(query))?.[1]() ?? [OK]);
  });
  return fake.port;
}

const grantsOf = (server: Server) => server.grants ?? [ALL_NEEDED];
const grants = (lines: string[]) =>
  resultRows(
    ['Grants for u@%'],
    lines.map((l) => [l]),
  );

async function snapshot(server: Server, log: string[]) {
  const port = await mysql(server, log);
  return takeSnapshot(
    { connection: { host: '127.0.0.1', port, user: 'u', password: '' }, databases: ['d'], chunk: 2 },
    {
      start: async (_point, tables) => void log.push(`start ${tables.map((t) => t.qualified).join()}`),
      rows: async (_table, rows) => void log.push(`rows ${rows.map((r) => String(r[0])).join()}`),
    },
  );
}

/** The statements from FLUSH TABLES WITH READ LOCK to UNLOCK TABLES, and whether any row came before the unlock. */
function locked(log: string[]): string[] {
  return log.slice(log.indexOf('FLUSH TABLES WITH READ LOCK'), log.indexOf('UNLOCK TABLES') + 1);
}

it(
  'MySQL 8.0: the lock held around the transaction start and SHOW MASTER STATUS only, ' + 'the point read there',
  async () => {
    const log: string[] = [];
    const point = await snapshot({ old: true }, log);
    expect(locked(log)).toEqual([
      'FLUSH TABLES WITH READ LOCK',
      'START TRANSACTION WITH CONSISTENT SNAPSHOT',
      'SHOW MASTER STATUS',
      'UNLOCK TABLES',
    ]);
    expect(log.indexOf('UNLOCK TABLES')).toBeLessThan(log.findIndex((l) => l.startsWith('start ')));
    expect(log.filter((l) => l.startsWith('rows '))).toEqual(['rows 1,2', 'rows 3']);
    expect(log.at(-1)).toBe('COMMIT');
    expect(point).toEqual({
      file: 'binlog.000042',
      position: 1234,
      gtid: '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5,4e11fa47-71ca-11e1-9e33-c80aa9429562:1-2',
    });
  },
);

it('MySQL 8.4: SHOW BINARY LOG STATUS where SHOW MASTER STATUS is refused, still under the lock', async () => {
  const log: string[] = [];
  const point = await snapshot({ old: false }, log);
  expect(locked(log)).toEqual([
    'FLUSH TABLES WITH READ LOCK',
    'START TRANSACTION WITH CONSISTENT SNAPSHOT',
    'SHOW MASTER STATUS',
    'SHOW BINARY LOG STATUS',
    'UNLOCK TABLES',
  ]);
  expect([point.file, point.position]).toEqual(['binlog.000042', 1234]);
});

it('a server without a binlog: the lock is released and the error says so, before any row', async () => {
  const log: string[] = [];
  await expect(snapshot({ old: true, status: [] }, log)).rejects.toThrow(/writes no binlog \(log_bin is OFF\)/);
  expect(locked(log).at(-1)).toBe('UNLOCK TABLES');
  expect(log.some((l) => l.startsWith('rows ') || l.startsWith('start '))).toBe(false);
});

it('a user without RELOAD: FLUSH TABLES WITH READ LOCK refused, the sentence names the privilege', async () => {
  const log: string[] = [];
  const refused = snapshot({ old: true, ftwrl: [err(ACCESS_DENIED, '42000', 'Access denied; you need RELOAD')] }, log);
  await expect(refused).rejects.toThrow(/RELOAD privilege/);
  await expect(refused).rejects.toBeInstanceOf(ServerError);
  expect(log).not.toContain('START TRANSACTION WITH CONSISTENT SNAPSHOT');
});

it('privileges held through an active role count: SHOW GRANTS names the roles CURRENT_ROLE() gives', async () => {
  const log: string[] = [];
  const role = '`snap`@`%`,`repl`@`%`';
  const roleGrants = [
    'GRANT RELOAD, REPLICATION CLIENT ON *.* TO `snap`@`%`',
    'GRANT REPLICATION SLAVE ON *.* TO `repl`@`%`',
  ];
  const usage = ['GRANT USAGE ON *.* TO `u`@`%`', 'GRANT `snap`@`%`,`repl`@`%` TO `u`@`%`'];
  await snapshot({ old: true, role, grants: usage, roleGrants }, log);
  expect(log).toContain(`SHOW GRANTS FOR CURRENT_USER() USING ${role}`);
  expect(log.at(-1)).toBe('COMMIT');
});

it("a user lacking privileges, its roles' included: the sentence names each missing one, before any lock", async () => {
  const log: string[] = [];
  const roleGrants = ['GRANT REPLICATION SLAVE ON *.* TO `repl`@`%`', 'GRANT SELECT ON `d`.* TO `repl`@`%`'];
  const missing = snapshot(
    { old: true, role: '`repl`@`%`', grants: ['GRANT USAGE ON *.* TO `u`@`%`'], roleGrants },
    log,
  );
  await expect(missing).rejects.toThrow(/^the user lacks RELOAD, REPLICATION CLIENT, which MySQL's snapshot and /);
  expect(log).not.toContain('FLUSH TABLES WITH READ LOCK');
});
