/**
 * The same workload as data.ts, written by builder/binlog-writer.ts's BinlogWriter instead of a server: for
 * sizes a server is slow to make (--data=builder --mb=2000), and as a measure of the builder itself.
 * Rows are made in JS from their sequence number as data.ts's SQL makes them, and each round's current
 * rows are kept so that UPDATE before images and DELETE images are what a server would log.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { BinlogWriter, type RowInput, type TableDef } from '../builder/index.js';
import { AUDIT_PER_TX, ROUND_ROWS, SMALL_TX, TX_ROWS } from './workload.js';

const orders: TableDef = {
  schema: 'bench',
  name: 'orders',
  primaryKey: 'id',
  columns: [
    { name: 'id', type: 'int', nullable: false },
    { name: 'customer', type: 'bigint', nullable: false },
    { name: 'name', type: 'varchar(100)', charset: 'utf8mb4' },
    { name: 'amount', type: 'decimal(12,2)' },
    { name: 'created', type: 'datetime(6)', nullable: false },
    { name: 'score', type: 'double' },
    { name: 'note', type: 'text', charset: 'utf8mb4' },
    { name: 'payload', type: 'blob' },
    { name: 'status', type: "enum('new','paid','shipped','cancelled')", nullable: false },
    { name: 'qty', type: 'smallint unsigned' },
  ],
};
const audit: TableDef = {
  schema: 'bench',
  name: 'audit',
  primaryKey: 'id',
  columns: [
    { name: 'id', type: 'bigint unsigned', nullable: false },
    { name: 'order_id', type: 'int', nullable: false },
    { name: 'kind', type: 'tinyint', nullable: false },
    { name: 'label', type: 'varchar(40)', charset: 'utf8mb4', nullable: false },
    { name: 'at', type: 'datetime(6)' },
    { name: 'delta', type: 'decimal(10,4)' },
  ],
};

const T0 = Date.UTC(2024, 0, 1);
const datetime = (ms: number, micros: number) =>
  `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}.${String(micros).padStart(6, '0')}`;
const fixed = (units: number, scale: number) => {
  const p = 10 ** scale;
  const fraction = String(Math.abs(units) % p).padStart(scale, '0');
  return `${units < 0 ? '-' : ''}${Math.floor(Math.abs(units) / p)}.${fraction}`;
};
const cents = (s: string) => Math.round(Number(s) * 100);

function order(seq: number): RowInput {
  return {
    id: seq,
    customer: BigInt((seq * 7919) % 1000003) * 9876543211n - 5000000000000000n,
    name: seq % 11 === 0 ? null : `Zoë Łukasz 名前 ${seq}`,
    amount: seq % 13 === 0 ? null : fixed((seq * 37) % 10000000, 2),
    created: datetime(T0 + seq * 1000, (seq * 7) % 1000000),
    score: seq % 17 === 0 ? null : seq / 7,
    note: seq % 5 === 0 ? null : `note ${seq} — ünïcode; `.repeat(1 + (seq % 6)),
    payload: seq % 3 === 0 ? null : new Uint8Array(createHash('sha256').update(String(seq)).digest()),
    status: ['new', 'paid', 'shipped', 'cancelled'][seq % 4]!,
    qty: seq % 19 === 0 ? null : seq % 65536,
  };
}

const auditRow = (seq: number): RowInput => ({
  id: BigInt(seq),
  order_id: Math.floor(seq / 4),
  kind: seq % 7,
  label: `änderung ${seq}`,
  at: seq % 9 === 0 ? null : datetime(T0 + 86_400_000 * 200, seq % 1000000),
  delta: seq % 2 === 0 ? null : fixed(seq, 4),
});

/** Writes rounds of the workload to `file` until it holds at least `targetBytes`; returns its size. */
export function buildBinlog(file: string, targetBytes: number, log: (s: string) => void): number {
  const fd = fs.openSync(file, 'w');
  let size = 0;
  const w = new BinlogWriter({ timestamp: 1_700_000_000, sink: (c) => ((size += c.length), fs.writeSync(fd, c)) });
  w.createDatabase('bench');
  w.createTable(orders);
  w.createTable(audit);
  for (let round = 0; size < targetBytes; round++) {
    const base = round * ROUND_ROWS;
    const cur: RowInput[] = [];
    const audits: RowInput[] = [];
    for (let a = base + 1; a <= base + ROUND_ROWS; a += TX_ROWS) {
      const rows: RowInput[] = [];
      for (let seq = a; seq < a + TX_ROWS; seq++) rows.push(order(seq));
      const aud: RowInput[] = [];
      for (let seq = a * 2; seq <= a * 2 + AUDIT_PER_TX; seq++) aud.push(auditRow(seq));
      w.begin()
        .insert('bench.orders', rows, { statement: 'INSERT INTO orders SELECT … FROM seq' })
        .insert('bench.audit', aud, { statement: 'INSERT INTO audit SELECT …' })
        .commit();
      cur.push(...rows);
      audits.push(...aud);
    }
    const update = (ids: number[], change: (r: RowInput) => RowInput, statement: string) => {
      const pairs = ids.map((i) => {
        const before = cur[i]!;
        return [before, (cur[i] = change(before))] as const;
      });
      w.update('bench.orders', pairs, { statement });
    };
    const half = [...Array(ROUND_ROWS / 2).keys()];
    w.begin();
    update(
      half,
      (r) => ({
        ...r,
        status: 'paid',
        amount: r.amount === null ? null : fixed(cents(r.amount as string) + 100, 2),
        score: r.score === null ? null : (r.score as number) * 2,
        qty: null,
      }),
      'UPDATE orders SET status = …',
    );
    w.commit().begin();
    const odd = [...Array(ROUND_ROWS / 2).keys()].map((k) => 2 * k);
    update(
      odd,
      (r) => ({
        ...r,
        name: r.name === null ? null : `${r.name as string} ✓`,
        note: r.note === null ? null : [...(r.note as string)].slice(0, 20).join(''),
        created: addDay(r.created as string),
      }),
      'UPDATE orders SET name = …',
    );
    w.commit();
    for (let i = 0; i < SMALL_TX; i++) {
      w.begin();
      update(
        [(i * 197) % ROUND_ROWS],
        (r) => ({ ...r, status: 'shipped', qty: i }),
        `UPDATE orders SET status = 'shipped', qty = ${i} WHERE id = …`,
      );
      w.commit();
    }
    w.begin()
      .delete('bench.orders', cur, { statement: 'DELETE FROM orders WHERE …' })
      .delete('bench.audit', audits, { statement: 'DELETE FROM audit' })
      .commit();
    log(`data: builder round ${round + 1}: ${(size / 1e6).toFixed(0)} / ${(targetBytes / 1e6).toFixed(0)} MB`);
  }
  w.stop();
  fs.closeSync(fd);
  return size;
}

function addDay(dt: string): string {
  const ms = Date.parse(`${dt.slice(0, 19).replace(' ', 'T')}Z`) + 86_400_000;
  return datetime(ms, Number(dt.slice(20)));
}
