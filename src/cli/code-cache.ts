/**
 * The CLI's start-up code cache. The build (scripts/build.mjs) writes dist/cli/ as CommonJS modules and, by running
 * `--help` and `validate` of the shipped playbooks once, a V8 code cache of each module it loaded
 * (dist/cli/code-cache/): the compiled bytecode of every function those commands ran. A later start then
 * deserializes instead of parsing and compiling (docs/architecture.md "Start-up").
 *
 * Sound by construction: a cache file carries the module's path and a copy of the source it was made from and is
 * used only for that very file, byte for byte, at that very place (V8 keeps the path a cache was made under, for
 * stack traces, so a dist/ moved elsewhere compiles afresh). The copy is compared, not a digest of it: a digest
 * would need Node's zlib or crypto, and loading either costs a start more than reading the copy (zlib loads Node's
 * streams, which a start that writes to a pipe no longer needs: src/cli/stdio.ts). V8 itself refuses a cache made
 * by another V8 version or with other flags
 * (`cachedDataRejected`), and then the module compiles as it would without a cache. Nothing is written at run time: only `recordCodeCache`,
 * which the build alone calls, writes. On Node ≥ 22.1 Node's own `module.enableCompileCache()` (a cache in the
 * system's temporary directory, keyed by content too) is used instead.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join, sep } from 'node:path';
import vm from 'node:vm';

/** where the cache of `dir/<path>` lives: `dir/code-cache/<path with / as __>.bin` */
export const CODE_CACHE_DIR = 'code-cache';

/** the part of Node's CommonJS module this needs: its exports, and how Node compiles and runs a source */
interface CompilingModule {
  exports: unknown;
  _compile: (this: CompilingModule, content: string, filename: string) => unknown;
}

/** how Node loads a file of an extension into a module (`Module._extensions`): this hooks `.js` (and `.cjs`) */
type ExtensionLoader = (module: CompilingModule, filename: string) => void;

type ModuleWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: CompilingModule,
  filename: string,
  dirname: string,
) => unknown;

/**
 * A cache file: the byte lengths of the module's path and source (32 bits each, little-endian), the path (UTF-8),
 * the source, then V8's cached data.
 */
const LENGTHS_BYTES = 8;

/** The build's cache for the modules under `dir`; on Node ≥ 22.1, Node's own compile cache instead. */
export function useCodeCache(dir: string): void {
  const nodeCache = (Module as { enableCompileCache?: () => unknown }).enableCompileCache;
  if (typeof nodeCache === 'function') {
    nodeCache();
    return;
  }
  hookCompile(dir, dir, undefined);
}

/**
 * For the build: like `useCodeCache`, and at exit (re)write the cache of every module under `dir` this process
 * compiled, with every function compiled so far. Runs add up: a module's cache read at start is written back with
 * what this run compiled besides. `finalDir`: where the modules will be run from (the build writes beside dist/
 * and then moves its output there).
 */
export function recordCodeCache(dir: string, finalDir: string): void {
  const compiled: { file: string; name: string; source: Buffer; script: vm.Script }[] = [];
  hookCompile(dir, finalDir, (file, name, source, script) => compiled.push({ file, name, source, script }));
  process.on('exit', () => {
    mkdirSync(join(dir, CODE_CACHE_DIR), { recursive: true });
    for (const { file, name, source, script } of compiled) {
      const path = Buffer.from(name, 'utf8');
      const lengths = Buffer.alloc(LENGTHS_BYTES);
      lengths.writeUInt32LE(path.length, 0);
      lengths.writeUInt32LE(source.length, 4);
      writeFileSync(file, Buffer.concat([lengths, path, source, script.createCachedData()]));
    }
  });
}

/**
 * `compiled`: recording (the build), told of every module compiled here. Without it (a start), a module with no
 * cache file made from its very source is Node's to compile, as without a cache: the recording runs made none for a
 * module with an `import()`, so a start need not look for one in the source.
 */
function hookCompile(
  dir: string,
  finalDir: string,
  compiled: ((file: string, name: string, source: Buffer, script: vm.Script) => void) | undefined,
): void {
  const extensions = (Module as unknown as { _extensions: Record<string, ExtensionLoader> })._extensions;
  const loadJs = extensions['.js'];
  if (loadJs === undefined) return;
  const own = dir + sep;
  const cacheDir = join(dir, CODE_CACHE_DIR) + sep;
  // a module of the CLI is read here, once: the bytes the cache is checked against are the bytes compiled
  extensions['.js'] = function (module: CompilingModule, filename: string): void {
    if (!filename.startsWith(own)) return loadJs(module, filename);
    const source = readFileSync(filename);
    const content = source.toString('utf8');
    // a module with an `import()` (of a package: the build makes the chunks' own a `require`) is Node's to
    // compile: on Node 20 a script from a code cache loses the callback `import()` needs
    if (compiled !== undefined && /\bimport\s*\(/.test(content))
      return void module._compile(content, filename);
    const path = filename.slice(own.length);
    const file = `${cacheDir}${path.split(sep).join('__')}.bin`;
    // the name stack traces show: the module's path where it runs
    const name = finalDir + sep + path;
    const cachedData = cachedDataFor(file, name, source);
    if (cachedData === undefined && compiled === undefined) return void module._compile(content, filename);
    const script = new vm.Script((Module as unknown as { wrap(code: string): string }).wrap(content), {
      filename: name,
      cachedData,
    });
    compiled?.(file, name, source, script);
    const wrapper = script.runInThisContext() as ModuleWrapper;
    wrapper.call(
      module.exports,
      module.exports,
      Module.createRequire(filename),
      module,
      filename,
      dirname(filename),
    );
  };
}

/** The V8 data of a cache file made at this very path from this very source; undefined when there is none or it is another's. */
function cachedDataFor(file: string, name: string, source: Buffer): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  if (bytes.length < LENGTHS_BYTES) return undefined;
  const pathEnd = LENGTHS_BYTES + bytes.readUInt32LE(0);
  const sourceEnd = pathEnd + bytes.readUInt32LE(4);
  if (sourceEnd >= bytes.length || bytes.toString('utf8', LENGTHS_BYTES, pathEnd) !== name) return undefined;
  return source.equals(bytes.subarray(pathEnd, sourceEnd)) ? bytes.subarray(sourceEnd) : undefined;
}
