/** `binlog dump` as a user runs it: the installed command on the bundled sample and on broken input. */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BinlogWriter } from '../builder/index.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import { size } from '../bin/progress.js';

const root = join(import.meta.dirname, '..');
const sample = join(root, 'test', 'fixtures', 'sample.bin');
const bytes = readFileSync(sample);
const tmp = mkdtempSync(join(tmpdir(), 'binlog-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function binlog(args: string[], input?: Uint8Array) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'binlog'), ...args], { input, maxBuffer: 1 << 28 });
  const stdout = r.stdout.toString();
  return { code: r.status, stdout, stderr: r.stderr.toString(), lines: stdout.split('\n').filter(Boolean) };
}

function file(name: string, content: Uint8Array): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

describe('binlog dump', () => {
  const ok = binlog(['dump', sample]);

  it('ends quietly, exit 0, when the reader of its output has gone before it writes', async () => {
    const child = spawn(process.execPath, [join(root, 'bin', 'binlog'), 'dump', sample], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const [code] = await once(child, 'exit');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('writes one JSON object per event and exits 0', () => {
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
    expect(ok.lines).toHaveLength(decodeBinlog(bytes).length);
  });

  it('each line has file, pos, header, type first, and positions that follow the event sizes', () => {
    let pos = 4;
    for (const line of ok.lines) {
      const e = JSON.parse(line);
      expect(Object.keys(e).slice(0, 4)).toEqual(['file', 'pos', 'header', 'type']);
      expect(e.file).toBe('sample.bin');
      expect(e.pos).toBe(pos);
      expect(Object.keys(e.header)).toEqual(['timestamp', 'typeCode', 'serverId', 'eventSize', 'logPos', 'flags']);
      expect(typeof e.checksum).toBe('number');
      pos += e.header.eventSize;
    }
    expect(pos).toBe(bytes.length);
  });

  it('several files: each line names the file it is in; encode takes lines with file and gives the bytes back', () => {
    const copy = file('binlog.000002', bytes);
    const both = binlog(['dump', sample, copy]);
    expect(both.code).toBe(0);
    const files = both.lines.map((l) => JSON.parse(l).file);
    expect(files).toEqual([
      ...Array(ok.lines.length).fill('sample.bin'),
      ...Array(ok.lines.length).fill('binlog.000002'),
    ]);
    // As mariadb-binlog: the start position is in the first file, the stop position in the last.
    const gtids = decodeBinlog(bytes).filter((e) => e.type === 'GTID_EVENT');
    const [from, to] = [gtids[2]!.pos, gtids[4]!.pos];
    const window = binlog(['dump', `--start-position=${from}`, `--stop-position=${to}`, sample, copy]).lines.map((l) =>
      JSON.parse(l),
    );
    const where = (e: { file: string; pos: number }) => `${e.file}@${e.pos}`;
    const expected = [
      ...ok.lines.map((l) => JSON.parse(l)).filter((e) => e.pos === 4 || e.pos >= from),
      ...ok.lines.map((l) => ({ ...JSON.parse(l), file: 'binlog.000002' })).filter((e) => e.pos < to),
    ];
    expect(window.map(where)).toEqual(expected.map(where));
    const out = join(tmp, 'from-file-lines.bin');
    expect(binlog(['encode', '-o', out], Buffer.from(ok.stdout)).code).toBe(0);
    expect(Buffer.compare(readFileSync(out), bytes)).toBe(0);
  });

  it('names types, prints enums by name, 64-bit values as numbers and bytes as hex', () => {
    const events = ok.lines.map((l) => JSON.parse(l));
    expect(events[0]).toMatchObject({ type: 'FORMAT_DESCRIPTION_EVENT', checksumAlg: 'BINLOG_CHECKSUM_ALG_CRC32' });
    expect(events.at(-1)).toMatchObject({ type: 'ROTATE_EVENT', position: 4, nextFile: 'binlog.000002' });
    expect(events.find((e) => e.type === 'INTVAR_EVENT')).toMatchObject({ kind: 'INSERT_ID_EVENT', value: 3 });
    const query = events.find((e) => e.type === 'QUERY_EVENT' && e.query.startsWith('CREATE TABLE people'));
    expect(query.schema).toBe('sample');
  });

  it('reads standard input given -: lines without file', () => {
    const fromFile = ok.lines.map((l) => {
      const { file: _f, ...rest } = JSON.parse(l);
      return rest;
    });
    expect(binlog(['dump', '-'], bytes).lines.map((l) => JSON.parse(l))).toEqual(fromFile);
  });

  it('on a file cut inside an event, prints every event before it, then one line naming the offset', () => {
    const events = decodeBinlog(bytes);
    const victim = events[10]!;
    const cut = binlog(['dump', file('cut.bin', bytes.subarray(0, victim.pos + 7))]);
    expect(cut.code).toBe(1);
    expect(cut.lines).toHaveLength(10);
    expect(cut.stderr.trim().split('\n')).toHaveLength(1);
    expect(cut.stderr).toContain(`event at ${victim.pos}`);
    expect(cut.stderr).toContain('ends inside an event');
    // Its type by name, as a checksum error names it: the code alone says little.
    expect(cut.stderr).toContain(`(type ${victim.header.typeCode}, ${victim.type})`);
  });

  it('a flipped byte is a checksum error, unless verification is off', () => {
    const query = decodeBinlog(bytes).find((e) => e.type === 'QUERY_EVENT')!;
    const bad = Uint8Array.from(bytes);
    bad[query.pos + query.header.eventSize - 6]! ^= 0x01; // a byte of the statement text
    const path = file('flipped.bin', bad);
    const strict = binlog(['dump', path]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(
      new RegExp(
        `checksum mismatch: stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8} \\[offset \\d+, ` +
          `event at ${query.pos} \\(type 2, QUERY_EVENT\\)`,
      ),
    );
    const lax = binlog(['dump', '--no-verify-checksum', path]);
    expect(lax.code).toBe(0);
    expect(lax.lines).toHaveLength(ok.lines.length);
  });

  it('refuses a file that is not a binlog', () => {
    const r = binlog(['dump', file('not.bin', Buffer.from('hello, world'))]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not a binlog: starts with 68 65 6c 6c');
  });

  it('a missing file is an I/O error (exit 3); bad usage is exit 2', () => {
    expect(binlog(['dump', join(tmp, 'nope.bin')]).code).toBe(3);
    expect(binlog(['dump']).code).toBe(2);
    expect(binlog(['frobnicate']).code).toBe(2);
    expect(binlog(['dump', '--frob', sample]).code).toBe(2);
  });

  it('--on-error=skip reports each bad event, prints it raw, goes on and exits 4', () => {
    const events = decodeBinlog(bytes);
    const bad = Uint8Array.from(bytes);
    bad[events[6]!.pos + events[6]!.header.eventSize - 1]! ^= 1;
    const r = binlog(['dump', '--on-error=skip', file('skip.bin', bad)]);
    expect(r.code).toBe(4);
    expect(r.lines).toHaveLength(events.length);
    expect(JSON.parse(r.lines[6]!)).toMatchObject({
      type: 'UNDECODED_EVENT',
      header: { typeCode: events[6]!.header.typeCode },
      raw: { hex: expect.any(String) },
    });
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining(`skipped: checksum mismatch`)]);
  });

  it('filters whole transactions by position, time, database and table, always keeping the FDE', () => {
    const events = decodeBinlog(bytes);
    const dumped = (args: string[]) => binlog(['dump', ...args, sample]).lines.map((l) => JSON.parse(l));
    const at = (type: string, from = 0) => events.findIndex((e, i) => i >= from && e.type === type);
    // From the GTID of the INSERT's transaction (index 7) to that of the DELETE's (17): 7-16 whole;
    // a start or stop inside a transaction leaves it out.
    const [insert, update, remove] = [at('GTID_EVENT', 6), at('GTID_EVENT', 8), at('GTID_EVENT', 12)];
    const window = dumped([`--start-position=${events[insert]!.pos}`, `--stop-position=${events[remove]!.pos}`]);
    expect(window.map((e) => e.pos)).toEqual([4, ...events.slice(insert, remove).map((e) => e.pos)]);
    const inside = dumped([
      `--start-position=${events[insert + 1]!.pos}`,
      `--stop-position=${events[remove + 1]!.pos}`,
    ]);
    expect(inside.map((e) => e.pos)).toEqual([4, ...events.slice(update, remove).map((e) => e.pos)]);
    const t = events[0]!.header.timestamp;
    const iso = new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19);
    expect(dumped([`--start-datetime=${iso}`])).toHaveLength(events.length);
    expect(dumped([`--stop-datetime=${iso}`]).map((e) => e.type)).toEqual([]);
    // notes' one transaction: its GTID, ANNOTATE_ROWS, TABLE_MAP, rows and COMMIT, besides the log's events.
    const notes = dumped(['--table=sample.notes']).filter((e) => e.pos > events[2]!.pos && e.type !== 'ROTATE_EVENT');
    expect(notes.map((e) => e.query ?? e.tableName ?? e.type)).toEqual([
      'GTID_EVENT',
      "INSERT INTO notes VALUES (1, 'myisam')",
      'notes',
      'WRITE_ROWS_EVENT_V1',
      'COMMIT',
    ]);
    const other = dumped(['--database=other']);
    expect(other.map((e) => e.type)).toEqual([
      'FORMAT_DESCRIPTION_EVENT',
      'GTID_LIST_EVENT',
      'BINLOG_CHECKPOINT_EVENT',
      'ROTATE_EVENT',
    ]);
    expect(binlog(['dump', '--start-position=x', sample]).code).toBe(2);
    expect(binlog(['dump', '--max-transaction-size=lots', sample]).code).toBe(2);
  });

  it('a --table or --database that nothing read names is said on stderr, with exit status 5', () => {
    const r = binlog(['dump', '--table=nosuch', '--database=sample', sample]);
    expect(r.code).toBe(5);
    expect(r.stderr).toBe('binlog: --table=nosuch: no event read names this table.\n');
    expect(binlog(['dump', '--table=notes', sample]).code).toBe(0);
    expect(binlog(['dump', '--table=Notes', sample]).code).toBe(5);
    expect(binlog(['dump', '--table=Notes', '--case-insensitive-names', sample]).code).toBe(0);
  });

  it('--progress: the last line drawn is the final count, of the whole input', () => {
    const r = binlog(['dump', '--progress', sample, sample]);
    expect(r.code).toBe(0);
    // Lines are redrawn after \r; the last one ends with a newline.
    const last = r.stderr.split('\r').at(-1)!;
    const n = decodeBinlog(bytes).length;
    expect(last).toMatch(
      new RegExp(
        `^${size(2 * bytes.length)} of ${size(2 * bytes.length)} \\(100%\\), ${2 * n} events, [\\d.]+ [kMG]?B/s, ` +
          `in \\d+\\.\\d s *\\n$`,
      ),
    );
    const filtered = binlog(['dump', '--progress', '--table=notes', sample]).stderr.split('\r').at(-1)!;
    expect(filtered).toMatch(new RegExp(`\\(100%\\), ${n} events, 9 written, `));
  });

  it('--help documents the command and its options', () => {
    const help = binlog(['--help']);
    expect(help.code).toBe(0);
    for (const word of ['dump', '--no-verify-checksum', 'Exit status']) expect(help.stdout).toContain(word);
  });

  it("COMMAND --help shows that command's options, not the others'", () => {
    const help = (c: string) => binlog([c, '--help']);
    const all = binlog(['--help']).stdout;
    expect(help('dump')).toMatchObject({ code: 0, stdout: expect.stringContaining('--follow') });
    expect(help('dump').stdout).not.toContain('--assume-format');
    expect(help('encode').stdout).toContain('--assume-format');
    expect(help('encode').stdout).not.toContain('--follow');
    expect(help('sql').stdout).toContain('--primary-key-only');
    expect(help('flashback').stdout).toContain('Options for flashback');
    for (const c of ['dump', 'encode', 'sql']) {
      expect(help(c).stdout).toContain('Exit status');
      expect(help(c).stdout.length).toBeLessThan(all.length);
    }
  });
});

describe('what the command says when it cannot go on', () => {
  const said = (args: string[], input?: Uint8Array) => {
    const r = binlog(args, input);
    return [r.code, r.stderr.split('\n')[0]];
  };

  it('alone, it prints its help on stderr and exits 2; --version prints the package version', () => {
    const alone = binlog([]);
    expect([alone.code, alone.stdout]).toEqual([2, '']);
    expect(alone.stderr).toContain('Usage:');
    const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
    expect(binlog(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it(
    'an unknown option names the one likely meant; ' +
      'an option without its value, or with one it does not take, says so',
    () => {
      expect(said(['dump', '--folow', sample])).toEqual([2, 'binlog: unknown option --folow (did you mean --follow?)']);
      expect(said(['sql', '--rows-onli', sample])).toEqual([
        2,
        'binlog: unknown option --rows-onli (did you mean --rows-only?)',
      ]);
      expect(said(['dump', '--zzzzzz', sample])).toEqual([2, 'binlog: unknown option --zzzzzz']);
      expect(said(['dump', sample, '--start-position'])).toEqual([2, 'binlog: --start-position needs a value']);
      expect(said(['dump', '--progress=yes', sample])).toEqual([2, 'binlog: --progress takes no value']);
      expect(said(['dump', '--follow', '-'])).toEqual([
        2,
        'binlog: --follow reads a FILE the server is writing, not standard input',
      ]);
    },
  );

  it('file errors are said in words, not as Node error codes', () => {
    expect(said(['dump', join(tmp, 'nope.bin')])).toEqual([
      3,
      `binlog: ${join(tmp, 'nope.bin')}: cannot open: no such file`,
    ]);
    expect(said(['dump', tmp])).toEqual([3, `binlog: ${tmp}: is a directory, not a file`]);
    expect(said(['encode', '-o', tmp], Buffer.from(''))).toEqual([
      2,
      `binlog: -o ${tmp} is a directory: give the binlog file to write`,
    ]);
  });

  it(
    '--format=json writes one array of the lines dump writes, --pretty indented; ' +
      'a cut input still gives a whole array',
    () => {
      const lines = binlog(['dump', sample]).lines.map((l) => JSON.parse(l));
      const array = binlog(['dump', '--format=json', sample]);
      expect([array.code, JSON.parse(array.stdout)]).toEqual([0, lines]);
      const pretty = binlog(['dump', '--format=json', '--pretty', sample]);
      expect(JSON.parse(pretty.stdout)).toEqual(lines);
      expect(pretty.stdout).toContain('\n  "pos": 4,\n');
      expect(JSON.parse(binlog(['dump', '--format=json', '--stop-position=5', sample]).stdout)).toEqual(
        lines.slice(0, 1),
      );
      const cut = binlog(['dump', '--format=json', '-'], bytes.subarray(0, 1000));
      expect(cut.code).toBe(1);
      const fromStdin = lines.map(({ file: _, ...rest }) => rest); // standard input has no file name
      expect(JSON.parse(cut.stdout)).toEqual(fromStdin.slice(0, 9));
      expect(said(['dump', '--pretty', sample])).toEqual([
        2,
        'binlog: --pretty is for --format=json: JSON Lines hold each event on one line',
      ]);
      expect(said(['dump', '--format=json', '--follow', sample])).toEqual([
        2,
        'binlog: --format=json writes one array, which --follow would never close: use JSON Lines',
      ]);
    },
  );

  it(
    'flashback of a file still being written warns as mariadb-binlog does, ' +
      'and its undo binlog goes without the in-use flag',
    () => {
      const events = decodeBinlog(bytes);
      const fde = events[0]!;
      expect(fde.header.flags! & 1).toBe(0);
      const inUse = file(
        'in-use.bin',
        encodeBinlog([{ ...fde, header: { ...fde.header, flags: fde.header.flags! | 1 } }, ...events.slice(1)]),
      );
      const out = join(tmp, 'in-use-undo.bin');
      const undo = binlog(['flashback', '--table=sample.people', inUse, '-o', out]);
      expect(undo.code).toBe(0);
      expect(undo.stderr).toBe(
        'binlog: warning: in-use.bin: this binlog is either in use or was not closed properly: ' +
          'the undo covers the changes written so far\n',
      );
      expect(decodeBinlog(readFileSync(out))[0]!.header.flags! & 1).toBe(0);
    },
  );

  it('encode and flashback write to standard output given -o -', () => {
    const dump = binlog(['dump', sample]).stdout;
    const encoded = spawnSync(process.execPath, [join(root, 'bin', 'binlog'), 'encode', '-o', '-'], {
      input: dump,
      maxBuffer: 1 << 28,
    });
    expect([encoded.status, encoded.stderr.toString(), Buffer.compare(encoded.stdout, bytes)]).toEqual([0, '', 0]);
    const undo = spawnSync(process.execPath, [
      join(root, 'bin', 'binlog'),
      'flashback',
      '--table=sample.people',
      sample,
      '-o',
      '-',
    ]);
    expect(undo.status).toBe(0);
    const undone = binlog(['flashback', '--table=sample.people', sample, '-o', join(tmp, 'undo.bin')]);
    expect(undone.code).toBe(0);
    expect(Buffer.compare(undo.stdout, readFileSync(join(tmp, 'undo.bin')))).toBe(0);
  });

  it("binlog completion gives a bash script that completes commands and each command's flags", () => {
    const script = binlog(['completion']).stdout;
    const complete = (...words: string[]) => {
      const r = spawnSync(
        'bash',
        [
          '-c',
          `eval "$(cat)"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; ` +
            `_binlog; echo "\${COMPREPLY[@]}"`,
        ],
        { input: script, encoding: 'utf8' },
      );
      return r.stdout.trim().split(' ');
    };
    expect(complete('binlog', 'en')).toEqual(['encode']);
    expect(complete('binlog', 'dump', '--fol')).toEqual(['--follow']);
    expect(complete('binlog', 'dump', '--start-')).toEqual(['--start-position', '--start-datetime', '--start-gtid']);
    expect(complete('binlog', 'encode', '--a')).toEqual(['--assume-format']);
    expect(complete('binlog', 'sql', '--pr')).toEqual(['--primary-key-only']);
    expect(complete('binlog', 'sql', '--to-')).toEqual(['--to-last-log']); // sql reads a server too (-R)
    // stream refuses --raw and --result-file: they are not offered.
    expect(complete('binlog', 'stream', '--r')).toEqual([
      '--read-from-remote-server',
      '--reconnect',
      '--retry-count',
      '--retry-delay',
      '--retry-timeout',
      '--replicas',
    ]);
    // The words after --on-error=, --format= and --payloads=, as bash splits them at the = and without that split.
    expect(complete('binlog', 'dump', '--on-error', '=', 's')).toEqual(['stop', 'skip']);
    expect(complete('binlog', 'dump', '--format', '=')).toEqual(['jsonl', 'json']);
    expect(complete('binlog', 'dump', '--format=jsonl')).toEqual(['--format=jsonl']);
    expect(complete('binlog', 'dump', '--payloads=f')).toEqual(['--payloads=flat']);
  });

  it('JSON, gzip data and a bad checksum get a hint of what to do', () => {
    expect(said(['dump', '-'], Buffer.from('{"type":"QUERY_EVENT"}\n'))[1]).toContain(
      "(JSON text: a dump's lines are made a binlog again by encode)",
    );
    expect(said(['dump', '-'], Buffer.from([0x1f, 0x8b, 8, 0, 0, 0]))[1]).toContain('(gzip data: decompress it first)');
    const bad = Uint8Array.from(bytes);
    bad[bad.length - 1]! ^= 1;
    const [code, line] = said(['dump', file('bad-crc.bin', bad)]);
    expect(code).toBe(1);
    expect(line).toMatch(
      /checksum mismatch.*\(--no-verify-checksum reads it anyway; dump --on-error=skip keeps it raw and goes on\)/,
    );
  });
});

describe('binlog dump --schema-file', () => {
  // A NO_LOG binlog (no names, signedness or charsets in its TABLE_MAP) and its table's schema, by hand.
  const w = new BinlogWriter({ rowMetadata: 'NO_LOG' });
  // The table was created before the binlog, which has only its rows: the schema file is what says its columns.
  const t = w.table({
    schema: 'app',
    name: 'users',
    charset: 'latin1',
    primaryKey: 'id',
    columns: [
      { name: 'id', type: 'int unsigned' },
      { name: 'nick', type: 'varchar(20)', charset: 'utf8mb4' },
    ],
  });
  w.insert(t, [{ id: 3000000000, nick: 'ünï' }]).commit();
  const noLog = file('users.000001', w.toBytes());
  const schema =
    '-- Host: localhost    Database: app\nCREATE TABLE `users` (\n  `id` int(10) ' +
    'unsigned NOT NULL,\n  `nick` varchar(20) CHARACTER SET utf8mb4 DEFAULT NULL,\n  PRIMARY KEY (`id`)\n) ' +
    'ENGINE=InnoDB DEFAULT CHARSET=latin1;\n';
  const rows = (r: { lines: string[] }) =>
    r.lines
      .map((l) => JSON.parse(l))
      .filter((e) => e.rows)
      .flatMap((e) => e.rows);

  it('gives the rows their names, signedness and text', () => {
    const r = binlog(['dump', '--schema-file', file('app.sql', new TextEncoder().encode(schema)), noLog]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(rows(r)).toEqual([{ after: { id: 3000000000, nick: 'ünï' } }]);
    // Without it, the id reads both ways.
    expect(rows(binlog(['dump', noLog]))[0].after['@1']).toEqual({ signed: -1294967296, unsigned: 3000000000 });
  });

  it('DB=FILE names the database of a script that has none', () => {
    const bare = file('bare.sql', new TextEncoder().encode(schema.replace(/^-- Host.*\n/, '')));
    expect(rows(binlog(['dump', '--schema-file', `app=${bare}`, noLog]))).toEqual([
      { after: { id: 3000000000, nick: 'ünï' } },
    ]);
    const none = binlog(['dump', '--schema-file', bare, noLog]);
    expect([none.code, none.stderr]).toEqual([
      2,
      `binlog: --schema-file ${bare}: table users: created before any USE, and no database was given for it ` +
        `(nor named by a dump header)\nRun 'binlog --help' for usage.\n`,
    ]);
  });

  it(
    'a schema of another table is one line naming the column, rows without it and exit 7; ' +
      'one it cannot describe is said, and left out',
    () => {
      const other = file(
        'other.sql',
        new TextEncoder().encode(schema.replace('`nick` varchar(20)', '`nick` varchar(30)')),
      );
      const bad = binlog(['dump', '--schema-file', other, noLog]);
      expect(bad.code).toBe(7);
      expect(bad.stderr).toBe(
        "binlog: table app.users, column nick: the TABLE_MAP's metadata says maxLength 80, " +
          "the definition's VARCHAR(30) in utf8mb4 gives 120 [in app.users.nick] " +
          '(the definition from the definitions given at the start); it leaves the schema history and its rows are ' +
          'read without one\n',
      );
      expect(Object.keys(rows(bad)[0].after)).toEqual(['@1', '@2']);
      const odd = file('odd.sql', new TextEncoder().encode(schema.replace('`nick` varchar(20)', '`nick` hyperstring')));
      const skipped = binlog(['dump', '--schema-file', odd, noLog]);
      expect(skipped.code).toBe(0);
      expect(skipped.stderr).toBe(
        `binlog: --schema-file ${odd}: table app.users, column nick: unknown SQL type 'hyperstring'; ` +
          `its rows are read without a definition.\n`,
      );
      expect(Object.keys(rows(skipped)[0].after)).toEqual(['@1', '@2']);
    },
  );

  it('a table the binlog creates is read with the definition its CREATE TABLE gives, no schema file needed', () => {
    const w = new BinlogWriter({ rowMetadata: 'NO_LOG' });
    const created = w.createTable({
      schema: 'app',
      name: 'users',
      charset: 'latin1',
      primaryKey: 'id',
      columns: [
        { name: 'id', type: 'int unsigned' },
        { name: 'nick', type: 'varchar(20)', charset: 'utf8mb4' },
      ],
    });
    w.insert(created, [{ id: 3000000000, nick: 'ünï' }]).commit();
    const r = binlog(['dump', file('created.000001', w.toBytes())]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(rows(r)).toEqual([{ after: { id: 3000000000, nick: 'ünï' } }]);
  });

  it('dump | encode with the same schema file gives the binlog back', () => {
    const sql = file('again.sql', new TextEncoder().encode(schema));
    const dumped = binlog(['dump', '--schema-file', sql, noLog]);
    const out = join(tmp, 'again.bin');
    const encoded = binlog(['encode', '--schema-file', sql, '-o', out], new TextEncoder().encode(dumped.stdout));
    expect([encoded.code, encoded.stderr]).toEqual([0, '']);
    expect(Buffer.compare(readFileSync(out), readFileSync(noLog))).toBe(0);
  });
});
