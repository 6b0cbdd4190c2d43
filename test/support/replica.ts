/**
 * A real MariaDB replica of `serveBinlog` watched by the tests: its status, and waits for it to catch up or to fail.
 */
import { Wire } from '../../replication/wire.js';
import type { MariadbServer } from './mariadb.js';

const WAIT_MS = 60_000;

/** SHOW SLAVE STATUS as name → value. */
export async function slaveStatus(replica: MariadbServer): Promise<Record<string, unknown>> {
  // The test client prints no column names: mysql2 gives them.
  const wire = await Wire.open({ socketPath: replica.socket, user: 'root' });
  try {
    return (await wire.query('SHOW SLAVE STATUS'))[0] ?? {};
  } finally {
    wire.close();
  }
}

async function checksums(server: MariadbServer, tables: string[]): Promise<(string | null)[][]> {
  return server.query(`CHECKSUM TABLE ${tables.join(', ')} EXTENDED`);
}

/** Waits until the replica's tables are the primary's (or fails with its status). */
export async function caughtUp(primary: MariadbServer, replica: MariadbServer, tables: string[]): Promise<void> {
  const want = await checksums(primary, tables);
  const until = Date.now() + WAIT_MS;
  for (;;) {
    const got = await checksums(replica, tables).catch(() => []);
    if (JSON.stringify(got) === JSON.stringify(want)) return;
    if (Date.now() > until) {
      const s = await slaveStatus(replica);
      throw new Error(
        `the replica did not catch up: IO ${s.Slave_IO_Running} '${s.Last_IO_Error}', ` +
          `SQL ${s.Slave_SQL_Running} '${s.Last_SQL_Error}'`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Waits until the replica's IO thread stops on an error, which is returned. */
export async function ioError(replica: MariadbServer): Promise<string> {
  const until = Date.now() + WAIT_MS;
  for (;;) {
    const s = await slaveStatus(replica);
    if (s.Last_IO_Error) return String(s.Last_IO_Error);
    if (Date.now() > until) throw new Error(`no IO error: IO ${s.Slave_IO_Running}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
