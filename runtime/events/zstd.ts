/**
 * The zstd WebAssembly library (@bokuweb/zstd-wasm), loaded on its first use. Its own `init()` is
 * asynchronous, while decoding and encoding a payload are synchronous (and so are decodeBinlog and
 * encodeBinlog): the module is compiled and instantiated synchronously instead, through the
 * `instantiateWasm` hook its Emscripten loader offers, which Node allows for a module of any size. Every
 * API stays as it was; the first zstd payload pays the few milliseconds, and nothing else does.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

interface Zstd {
  compress(bytes: Uint8Array, level: number): Uint8Array;
  decompress(frame: Uint8Array, options: { defaultHeapSize: number }): Uint8Array;
}

/** The Emscripten module object behind the library, with the hooks used here. */
interface EmscriptenModule {
  instantiateWasm?: (imports: object, receive: (instance: Instance) => void) => object;
  init(): void;
  calledRun?: boolean;
}

/** What is used of the WebAssembly global (the project's lib settings do not declare it). */
interface Instance {
  exports: object;
}
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => Instance;
}

let loaded: Zstd | undefined;

/** The library, ready to use. */
export function zstd(): Zstd {
  return (loaded ??= load());
}

function load(): Zstd {
  const require = createRequire(import.meta.url);
  const dist = require.resolve('@bokuweb/zstd-wasm').replace(/index\.node\.js$/, '');
  const lib = require('@bokuweb/zstd-wasm') as Zstd;
  const { Module } = require(`${dist}module.js`) as { Module: EmscriptenModule };
  // The project's libraries (ES2023, Node's types) declare no WebAssembly: the cast names what is used of it.
  const { WebAssembly } = globalThis as unknown as { WebAssembly: Wasm };
  const wasm = new WebAssembly.Module(readFileSync(`${dist}zstd.wasm`));
  Module.instantiateWasm = (imports, receive) => {
    const instance = new WebAssembly.Instance(wasm, imports);
    receive(instance);
    return instance.exports;
  };
  Module.init();
  // The hook runs the module's start-up at once; were it deferred, the first call would fail obscurely.
  if (!Module.calledRun) throw new Error('@bokuweb/zstd-wasm did not start synchronously');
  return lib;
}
