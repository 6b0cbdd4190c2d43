/**
 * The measurement behind docs/schema-history.md's choice of DDL parser: how many statements of
 * test/fixtures/ddl-corpus.jsonl each npm SQL parser reads into a table shape. The parsers are not
 * dependencies of the project, so this script loads them from the directory given as its argument (where
 * `npm i node-sql-parser sql-ddl-to-json-schema dt-sql-parser` was run): `tsx scripts/ddl-parsers.ts DIR`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

interface Statement {
  source: string;
  db: string;
  sql: string;
}

const dir = process.argv[2];
if (!dir) throw new Error('usage: tsx scripts/ddl-parsers.ts DIR (where the parsers are installed)');
const require = createRequire(join(dir, 'package.json'));
const corpus = readFileSync(new URL('../test/fixtures/ddl-corpus.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Statement);

/** The first word pair of a statement, comments left out: what kind of shape it must give. */
const kind = (sql: string) =>
  sql
    .replace(/^(\s|\/\*[\s\S]*?\*\/)+/, '')
    .split(/\s+/)[0]!
    .toUpperCase();

type Reading = (sql: string) => boolean;

/** node-sql-parser: a CREATE TABLE's columns with types, an ALTER's actions, another statement's AST. */
function nodeSqlParser(database: string): Reading {
  const { Parser } = require('node-sql-parser') as { Parser: new () => { astify(sql: string, o: object): unknown } };
  const parser = new Parser();
  return (sql) => {
    const ast = [parser.astify(sql, { database })].flat()[0] as Record<string, unknown> | undefined;
    if (!ast) return false;
    if (kind(sql) === 'CREATE' && ast.keyword === 'table') {
      const defs = (ast.create_definitions ?? []) as { resource?: string; definition?: { dataType?: string } }[];
      return ast.like !== undefined
        ? true
        : defs.some((d) => d.resource === 'column' && d.definition?.dataType !== undefined);
    }
    if ((kind(sql) === 'ALTER' && ast.keyword === 'table') || ast.type === 'alter') return Array.isArray(ast.expr);
    return true;
  };
}

/** sql-ddl-to-json-schema: its parse of the statement (it reads CREATE, ALTER, DROP and RENAME TABLE). */
function sqlDdlToJsonSchema(): Reading {
  const { Parser } = require('sql-ddl-to-json-schema') as {
    Parser: new (d: string) => { feed(s: string): { results: unknown[] } };
  };
  return (sql) => {
    // Its results are one tree (or none) whose statements are MAIN's `def` list, each a P_DDS node.
    // The parser, installed outside the project for the measure, has no types: the cast names what is read.
    const results = new Parser('mysql').feed(`${sql};`).results as unknown as
      { def?: { def?: { id?: string } }[] } | undefined;
    const statement = results?.def?.[0]?.def;
    return statement?.id !== undefined && statement.id !== 'P_SET' && statement.id !== 'P_USE';
  };
}

/** dt-sql-parser: whether its MySQL grammar accepts the statement (it gives a syntax tree, no table shape). */
function dtSqlParser(): Reading {
  const { MySQL } = require('dt-sql-parser') as { MySQL: new () => { validate(s: string): unknown[] } };
  const parser = new MySQL();
  return (sql) => parser.validate(sql).length === 0;
}

function measure(name: string, make: () => Reading): void {
  let read: Reading;
  try {
    read = make();
  } catch (e) {
    console.log(`${name}: cannot be loaded (${(e as Error).message.split('\n')[0]})`);
    return;
  }
  const count = (source: string) =>
    corpus
      .filter((s) => s.source === source)
      .filter((s) => {
        try {
          return read(s.sql);
        } catch {
          return false;
        }
      }).length;
  const total = (source: string) => corpus.filter((s) => s.source === source).length;
  console.log(
    `${name}: fixtures ${count('fixtures')}/${total('fixtures')}, manual ${count('manual')}/${total('manual')}`,
  );
}

measure('node-sql-parser (MariaDB)', () => nodeSqlParser('MariaDB'));
measure('node-sql-parser (MySQL)', () => nodeSqlParser('MySQL'));
measure('sql-ddl-to-json-schema', sqlDdlToJsonSchema);
measure('dt-sql-parser', dtSqlParser);
