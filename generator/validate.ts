/** First pass: every schema file must match the language's JSON Schema. */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import { schemaError, type SchemaError, type SchemaFile, type YamlPath } from './load.js';

const languageSchema = JSON.parse(readFileSync(new URL('./language.schema.json', import.meta.url), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const validateLanguage = ajv.compile(languageSchema);

export function validateFile(file: SchemaFile): SchemaError[] {
  if (validateLanguage(file.data)) return [];
  const all = validateLanguage.errors ?? [];
  // A failed union says it once, as itself, rather than once for each alternative it tried.
  const unions = all.filter(isUnion).map((e) => e.instancePath);
  // A key its type does not take is said by the inner error, which names the key (`propertyName`); a key
  // no field takes is an unknown property, said once as such.
  const unknown = all.filter((e) => e.keyword === 'additionalProperties').map((e) => pathOf(e).join('/'));
  const errors = all.filter(
    (e) =>
      isUnion(e) ||
      (e.keyword !== 'if' &&
        e.keyword !== 'propertyNames' &&
        !unions.includes(e.instancePath) &&
        !(e.propertyName !== undefined && unknown.includes(pathOf(e).join('/')))),
  );
  // Of the alternatives a union reports, the deepest says most; report each place once.
  errors.sort((a, b) => depth(b) - depth(a));
  const seen = new Set<string>();
  const out: SchemaError[] = [];
  for (const e of errors) {
    const path = pathOf(e);
    const key = path.join('/');
    if ([...seen].some((s) => s === key || s.startsWith(`${key}/`))) continue;
    seen.add(key);
    out.push(schemaError(file, path, describe(e, file)));
  }
  return out.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

function isUnion(e: ErrorObject): boolean {
  return e.keyword === 'anyOf' || e.keyword === 'oneOf';
}

function depth(e: ErrorObject): number {
  return pathOf(e).length;
}

function pathOf(e: ErrorObject): YamlPath {
  const path: YamlPath = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (e.keyword === 'additionalProperties') path.push(e.params.additionalProperty);
  if (e.propertyName !== undefined) path.push(e.propertyName);
  return path;
}

function describe(e: ErrorObject, file: SchemaFile): string {
  if (e.propertyName !== undefined && e.keyword === 'enum') return keyNotTaken(e, file);
  const value = valueAt(file, pathOf(e));
  switch (e.keyword) {
    case 'additionalProperties':
      return `unknown property '${e.params.additionalProperty}'`;
    case 'required':
      return `missing property '${e.params.missingProperty}'`;
    case 'enum': {
      const allowed = e.params.allowedValues.map((v: unknown) => JSON.stringify(v)).join(', ');
      return `${JSON.stringify(value)} is not one of ${allowed}`;
    }
    case 'const':
      return `${JSON.stringify(value)} is not ${JSON.stringify(e.params.allowedValue)}`;
    case 'pattern':
      // A name the pattern refuses is said as the name, not as the whole value it names.
      if (e.propertyName !== undefined) return `name '${e.propertyName}' does not match ${e.params.pattern}`;
      return `${JSON.stringify(value)} does not match ${e.params.pattern}`;
    case 'oneOf':
      return exactlyOneKey(e);
    case 'anyOf': {
      const key = pathOf(e).at(-1);
      return key === 'type'
        ? `unknown type '${String(value)}'`
        : `${JSON.stringify(value)} is not a valid ${String(key)}`;
    }
    default:
      return e.message ?? e.keyword;
  }
}

/** A field's key that its type does not use (the language's keys-by-type rules): named with the type's keys. */
function keyNotTaken(e: ErrorObject, file: SchemaFile): string {
  const owner = valueAt(file, pathOf(e).slice(0, -1)) as { type?: unknown } | undefined;
  const keys = (e.params.allowedValues as string[] | undefined)?.join(', ');
  const listed = keys ? ` (its keys: ${keys})` : '';
  return `'${e.propertyName}' does not apply to a field of type ${String(owner?.type)}${listed}`;
}

/** A value that must have exactly one of some keys (a `oneOf` whose forms each require one key), said with the keys. */
function exactlyOneKey(e: ErrorObject): string {
  const forms = schemaAt(e.schemaPath) as { required?: string[] }[];
  const keys = forms.map((f) => `'${f.required?.join("', '")}'`).join(' or ');
  return e.params.passingSchemas ? `${keys}, not both` : `missing ${keys}`;
}

/** The part of the language schema at a JSON pointer (`#/definitions/…`). */
function schemaAt(pointer: string): unknown {
  let v: unknown = languageSchema;
  for (const p of pointer.split('/').slice(1)) {
    v = (v as Record<string, unknown>)[p.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

function valueAt(file: SchemaFile, path: YamlPath): unknown {
  let v: unknown = file.data;
  for (const p of path) v = v && typeof v === 'object' ? (v as Record<string | number, unknown>)[p] : undefined;
  return v;
}
