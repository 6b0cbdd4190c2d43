/**
 * Where the runtime keeps each name the generated code imports: the one place that knows the runtime's
 * layout. Paths are relative to the runtime folder, without their `.js`.
 */

/** Runtime values (functions, classes) each module may import, and where they live. */
export const RUNTIME = {
  Reader: 'core/reader',
  bytesToText: 'core/reader',
  Writer: 'core/writer',
  textToBytes: 'core/writer',
  EncodeError: 'core/errors',
  InvalidValueError: 'core/errors',
  enumName: 'core/schema-helpers',
  enumCode: 'core/schema-helpers',
  checkConst: 'core/schema-helpers',
  checkDerived: 'core/schema-helpers',
  required: 'core/schema-helpers',
  versionAtLeast: 'core/schema-helpers',
  bit: 'core/schema-helpers',
  noCase: 'core/schema-helpers',
  absentTarget: 'core/schema-helpers',
  sizeWithItself: 'core/schema-helpers',
  placedAt: 'core/schema-helpers',
  cellWith: 'core/schema-helpers',
  inflate: 'core/compression',
  deflate: 'core/compression',
  rangeMap: 'core/schema-helpers',
  builtOnFirstUse: 'core/schema-helpers',
  tableName: 'core/tables',
  hasTableDefinition: 'core/tables',
  rowsFromJson: 'core/row-json',
  oldRowsFromJson: 'core/row-json',
  jObject: 'core/dump-json',
  jArray: 'core/dump-json',
  jNum: 'core/dump-json',
  jNumbers: 'core/dump-json',
  jBig: 'core/dump-json',
  jFloat: 'core/dump-json',
  jBits: 'core/dump-json',
  jBytes: 'core/dump-json',
  jText: 'core/dump-json',
  jEnum: 'core/dump-json',
  readKeyed: 'core/keyed-fields',
  lastKeyed: 'core/keyed-fields',
  keyedOrder: 'core/keyed-fields',
  writeKeyed: 'core/keyed-fields',
  jKeyOrder: 'core/keyed-fields',
  jsonKey: 'core/dump-json-bytes',
  keepsKeyOrder: 'core/dump-json-bytes',
} as const;
export type RuntimeName = keyof typeof RUNTIME;

/** Runtime types imported only as types. */
export const TYPE_ONLY_RUNTIME = {
  Text: 'core/reader',
  KeyedEntry: 'core/keyed-fields',
  RowChange: 'core/values',
  RowChangeInput: 'core/values',
  OldRowChange: 'core/values',
  RowTables: 'core/tables',
  CellCodec: 'core/values',
  CellValue: 'core/values',
  CellColumn: 'core/values',
  TextCodec: 'core/values',
  JsonTree: 'core/values',
  ColumnCover: 'core/tables',
  JsonBytes: 'core/dump-json-bytes',
} as const;
export type RuntimeType = keyof typeof TYPE_ONLY_RUNTIME | 'Reader' | 'Writer';

export function isRuntimeType(name: string): name is keyof typeof TYPE_ONLY_RUNTIME {
  return name in TYPE_ONLY_RUNTIME;
}

/**
 * The import specifier of the runtime module that holds `name`; `runtimeDir` is the runtime's path from the output
 * folder.
 */
export function runtimeModule(runtimeDir: string, name: RuntimeName | RuntimeType): string {
  return `${runtimeDir}/${isRuntimeType(name) ? TYPE_ONLY_RUNTIME[name] : RUNTIME[name]}.js`;
}
