// Builds the sandbox package (packages/sandbox/dist, by its own build script), then the CLI into dist/cli/: one
// esbuild bundle (entry cli.js, lazily loaded chunks per command) written as CommonJS modules, the JSON Schema
// validators compiled to code ahead of time (validators/ for playbooks, targets, plans and each step kind's `with`;
// wire-validators/ for the bodies the clients check), so neither `ledgerbook validate` nor a run loads ajv's
// compiler or compiles a schema, and a V8 code cache of the modules `--help` and `validate` load (code-cache/, read
// by the executable main.js: src/cli/code-cache.ts). Type checking is `npm run typecheck`.
// A build whose inputs (scripts/build-inputs.mjs) have not changed since the last one is skipped: `npm ci` builds,
// and the quickstart and the tests after it find dist/ made already. `--force` builds all the same.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import process from 'node:process';
import { build, transform } from 'esbuild';
import { BUILD_INPUTS_NAME, buildInputsDigest } from './build-inputs.mjs';
import { importTs } from './import-ts.mjs';
import { packModules, runCli, writeValidatorIndex } from './pack-modules.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const inputs = buildInputsDigest(root);
const built = (() => {
  try {
    return readFileSync(join(root, 'dist', BUILD_INPUTS_NAME), 'utf8').trim();
  } catch {
    return undefined;
  }
})();
if (
  built === inputs &&
  existsSync(join(root, 'packages', 'sandbox', 'dist', 'index.js')) &&
  !process.argv.includes('--force')
) {
  process.stdout.write(
    'dist/ is up to date: its inputs have not changed since it was built (--force builds again)\n',
  );
  process.exit(0);
}
// Built beside dist/ and swapped in at the end, so a CLI started meanwhile never sees a half-written dist/.
const staging = join(root, `.dist-${process.pid}`);
const out = join(staging, 'cli');

// Heavy packages only some commands need stay outside the bundle and load from node_modules on demand.
// The sandbox is a package of its own, loaded at run time through its entry (src/cli/sandbox-package.ts).
const external = ['@ledgerbook/sandbox', 'jose', 'openid-client', 'undici', 'execa'];

await import(pathToFileURL(join(root, 'packages', 'sandbox', 'scripts', 'build.mjs')).href);

/** `import.meta` of a CommonJS module: its `url`, made when read (making it for every module took 2 ms a start) */
const IMPORT_META =
  'var __lbImportMeta = { get url() { return require("node:url").pathToFileURL(__filename).href; } };';

/** a module of Node's loaded the first time one of its members is read */
const LAZY =
  'var __lbLazy = (load) => { let m; return new Proxy({}, { get: (_, key) => (m ??= load())[key] }); };';

/**
 * commander loads node:child_process (and with it net, dgram and the rest) at start-up, for the executable
 * subcommands ledgerbook has none of: it gets a stand-in that loads the module on its first spawn.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      args.importer.includes(`${sep}node_modules${sep}commander${sep}`)
        ? { path: 'child_process', namespace: 'lazy' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: "exports.spawn = (...args) => require('node:child_process').spawn(...args);",
      loader: 'js',
    }));
  },
};

await mkdir(out, { recursive: true });
// Split into chunks as ES modules (esbuild splits only those), then each chunk turned into a CommonJS module: Node 20
// can cache the compiled code of a CommonJS module (src/cli/code-cache.ts), not of an ES module.
const bundle = await build({
  entryPoints: { cli: join(root, 'src', 'cli', 'main.ts') },
  outdir: out,
  bundle: true,
  splitting: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  external,
  // the version as a constant (src/cli/version.ts): a start reads no package.json for it
  define: {
    LEDGERBOOK_VERSION: JSON.stringify(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version),
  },
  plugins: [lazyChildProcess],
  write: false,
  logLevel: 'warning',
});
for (const file of bundle.outputFiles) await writeFile(file.path, await commonJs(file.text));
// the executable: the code cache, then cli.js
await build({
  entryPoints: [join(root, 'src', 'cli', 'start.ts')],
  outfile: join(out, 'main.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'warning',
});
await writeFile(join(out, 'package.json'), '{ "type": "commonjs" }\n');

/**
 * One chunk of the ES module build as a CommonJS module: `import.meta.url` is the file's URL, a chunk's own lazy
 * `import("./chunk.js")` a `require` (so that it is cached too), and `import()` of a package stays as it is.
 */
async function commonJs(esm) {
  const { code } = await transform(esm.replace(/^#!.*\n/, ''), {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    define: { 'import.meta': '__lbImportMeta' },
    banner: `"use strict";\n${IMPORT_META}\n${LAZY}`,
    logLevel: 'warning',
  });
  return lazyBuiltins(code).replace(
    /\bimport\("(\.\/[\w.-]+\.js)"\)/g,
    'Promise.resolve().then(() => require("$1"))',
  );
}

/**
 * A chunk's `import … from 'node:…'` (each a `require` at its top once CommonJS) loads that module of Node's when
 * the chunk first uses it, not when the chunk loads: `validate` then loads no crypto, fs/promises, net … that
 * only a run calls (loading Node's crypto alone takes about 4 ms). Only where the chunk does nothing with the
 * module but read its members (`import_node_crypto.createHash`), which a stand-in can forward.
 */
function lazyBuiltins(code) {
  return code.replace(/^var (import_[\w$]+) = require\("(node:[\w/]+)"\);$/gm, (line, name, builtin) => {
    const uses = code.split(new RegExp(`\\b${name.replaceAll('$', '\\$')}\\b`)).length - 2;
    const reads = code.split(new RegExp(`\\b${name.replaceAll('$', '\\$')}\\.`)).length - 1;
    return uses === reads ? `var ${name} = __lbLazy(() => require("${builtin}"));` : line;
  });
}

const { precompiledValidators, precompiledWireValidators } = await importTs(
  join(root, 'src', 'cli', 'precompile-validators.ts'),
);
// the playbook's, the target's, the saved plan's and each step kind's schema, one module each: the folder is
// SCHEMA_VALIDATORS_DIR of src/playbook/precompiled.ts
const validators = join(out, 'validators');
await mkdir(validators);
for (const [name, code] of await precompiledValidators())
  await writeFile(join(validators, `${name}.cjs`), code);
await writeValidatorIndex(out);
// the clients' wire schemas, one module each: the folder is WIRE_VALIDATORS_DIR of src/clients/schema-check.ts
const wire = join(out, 'wire-validators');
await mkdir(wire);
for (const [key, code] of precompiledWireValidators()) await writeFile(join(wire, `${key}.cjs`), code);

// The commands start-up is measured by (bench/cold-start.bench.mjs): the modules each loads are packed, and the
// code cache is made by running them.
const playbooks = readdirSync(join(root, 'playbooks'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => join('playbooks', f));
const commandEnv = { ...process.env, CI: 'true', NO_COLOR: '1' };
// the modules the same commands load, one file each (scripts/pack-modules.mjs)
await packModules(out, [['--help'], ...playbooks.map((playbook) => ['validate', playbook])], {
  cwd: root,
  env: commandEnv,
  scratch: staging,
});

// The code cache: `--help`, then `validate` of every shipped playbook, each run adding what it compiled
// (src/cli/code-cache.ts recordCodeCache). Written here, at build time only; the executable only reads it.
const recorder = join(staging, 'record-code-cache.cjs');
await build({
  stdin: {
    contents:
      "import { recordCodeCache } from './src/cli/code-cache.ts'; recordCodeCache(require('node:path').join(__dirname, 'cli'), process.env.CODE_CACHE_FOR);",
    resolveDir: root,
    loader: 'ts',
  },
  outfile: recorder,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'warning',
});
for (const args of [['--help'], ['validate', ...playbooks]]) {
  runCli(recorder, join(out, 'cli.js'), args, {
    cwd: root,
    env: { ...commandEnv, CODE_CACHE_FOR: join(root, 'dist', 'cli') },
  });
}
await rm(recorder);
// what this build was made from, computed before it began: a source edited meanwhile makes the next build run
await writeFile(join(staging, BUILD_INPUTS_NAME), `${inputs}\n`);

const retired = join(root, `.dist-old-${process.pid}`);
await rename(join(root, 'dist'), retired).catch((error) => {
  if (error.code !== 'ENOENT') throw error;
});
await rename(staging, join(root, 'dist'));
await rm(retired, { recursive: true, force: true });
