// Packs the CLI's CommonJS modules (dist/cli/chunk-*.js and the rest) that the same commands load into one file
// each: every module is a file to find and read, with its code cache, and `validate` loaded 30 to 65 of them. The build runs each command given (`--help`, `validate` of each shipped
// playbook) with a tracer, and the modules loaded by exactly the same commands become one pack
// (`pack-<n>.js`): a file that holds each module as a function and runs it the first time it is required, once,
// like a file of its own. Every `require("./<module>")` of the build becomes `require("./pack-<n>.js")("<module>")`.
// A module none of the traced commands loads stays a file of its own, and so does one with an `import()` (such a
// module is compiled without its code cache: src/cli/code-cache.ts) and the entry, cli.js. The schema validators
// (dist/cli/validators/) join the packs too, a step kind's with the kind's module; validators/packs.cjs says where
// each key's validators are.
import { spawnSync } from 'node:child_process';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import process from 'node:process';

/** records the path of every module the process loads, into the file PACK_TRACE names, at exit */
const TRACER = `const Module = require('node:module');
const loaded = new Set();
const load = Module.prototype.load;
Module.prototype.load = function (filename) { loaded.add(filename); return load.call(this, filename); };
process.on('exit', () => require('node:fs').writeFileSync(process.env.PACK_TRACE, JSON.stringify([...loaded])));
`;

/**
 * @param {string} dir the CLI's modules (dist/cli of the build)
 * @param {string[][]} runs the commands to trace, as arguments of cli.js
 * @param {{ cwd: string, env: NodeJS.ProcessEnv, scratch: string }} options scratch: a folder for the tracer's files
 */
export async function packModules(dir, runs, { cwd, env, scratch }) {
  const loadedBy = await trace(dir, runs, { cwd, env, scratch });
  const names = (await readdir(dir)).filter((name) => name.endsWith('.js') && name !== 'main.js');
  // the schema validators (src/playbook/precompiled.ts) go with the modules the same commands load: a step
  // kind's validator into the pack of the kind's own module
  const validators = await validatorModules(dir);
  const code = await readAll(dir, [...names, ...validators]);
  const packs = packsOf(
    [...names.filter((name) => name !== 'cli.js' && !/\bimport\s*\(/.test(code.get(name))), ...validators],
    loadedBy,
  );
  const packOf = new Map();
  packs.forEach((members, index) => {
    for (const name of members) packOf.set(name, `pack-${index + 1}.js`);
  });
  const rewrite = (text) =>
    text.replace(/\brequire\("\.\/([\w.-]+\.js)"\)/g, (call, name) =>
      packOf.has(name) ? `require("./${packOf.get(name)}")(${JSON.stringify(name)})` : call,
    );
  for (const [index, members] of packs.entries())
    await writePack(dir, `pack-${index + 1}.js`, members, (name) => rewrite(code.get(name)));
  for (const name of names.filter((name) => !packOf.has(name))) {
    const text = rewrite(code.get(name));
    if (text !== code.get(name)) await writeFile(join(dir, name), text);
  }
  await writeValidatorIndex(dir, packOf, validators);
  return { modules: names.length + validators.length, packs: packs.length, packed: packOf.size };
}

/**
 * Runs the built CLI with a module required first (a tracer, the code cache's recorder). A playbook that does not
 * validate (exit 65) still gives a run to learn from; a crash or an internal error (exit 70) fails the build.
 */
export function runCli(preload, cli, args, { cwd, env }) {
  const result = spawnSync(process.execPath, ['--require', preload, cli, ...args], {
    cwd,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  if (result.status !== 0 && result.status !== 65)
    throw new Error(
      `ledgerbook ${args.join(' ')} exited ${result.status ?? result.signal}:\n${result.stderr}`,
    );
}

/**
 * validators/packs.cjs: each key's validators (src/playbook/precompiled.ts), by their file names (`<key>.cjs`,
 * `<key>.<n>.cjs`): in a pack, [pack, name there]; else [file]. Written before the traced runs too (none packed), so
 * that they load the validators they use.
 * @param {Map<string, string>} packOf the pack of each packed module
 * @param {string[]} validators every validator module, packed or not (`validators/<file>`): by default, those in the folder
 */
export async function writeValidatorIndex(dir, packOf = new Map(), validators = undefined) {
  const names = validators ?? (await validatorModules(dir));
  const index = {};
  for (const name of names) {
    const file = name.slice(VALIDATORS.length + 1);
    const key = file.replace(/(\.\d+)?\.cjs$/, '');
    (index[key] ??= []).push(packOf.has(name) ? [`../${packOf.get(name)}`, name] : [file]);
  }
  await writeFile(join(dir, VALIDATORS, VALIDATOR_INDEX), `module.exports = ${JSON.stringify(index)};\n`);
}

/** the folder of the schema validators: SCHEMA_VALIDATORS_DIR of src/playbook/precompiled.ts */
const VALIDATORS = 'validators';
/** the index of the validators in it, which src/playbook/precompiled.ts reads */
const VALIDATOR_INDEX = 'packs.cjs';

/** the validator modules in the folder (packed ones are no longer there), as `validators/<file>` */
async function validatorModules(dir) {
  return (await readdir(join(dir, VALIDATORS)))
    .filter((file) => file.endsWith('.cjs') && file !== VALIDATOR_INDEX)
    .map((file) => `${VALIDATORS}/${file}`);
}

/** each file under `dir` the traced commands load (its path relative to `dir`), with the numbers of those commands */
async function trace(dir, runs, { cwd, env, scratch }) {
  const loadedBy = new Map();
  const tracer = join(scratch, 'trace-modules.cjs');
  const file = join(scratch, 'trace-modules.json');
  await writeFile(tracer, TRACER);
  for (const [run, args] of runs.entries()) {
    runCli(tracer, join(dir, 'cli.js'), args, { cwd, env: { ...env, PACK_TRACE: file } });
    for (const loaded of JSON.parse(await readFile(file, 'utf8'))) {
      const path = relative(dir, loaded).split(sep).join('/');
      loadedBy.set(path, [...(loadedBy.get(path) ?? []), run]);
    }
  }
  await rm(tracer);
  await rm(file);
  return loadedBy;
}

async function readAll(dir, names) {
  return new Map(
    await Promise.all(names.map(async (name) => [name, await readFile(join(dir, name), 'utf8')])),
  );
}

/** the modules loaded by exactly the same commands, in groups of two or more */
function packsOf(names, loadedBy) {
  const groups = new Map();
  for (const name of names) {
    const by = loadedBy.get(name) ?? [];
    if (by.length > 0) groups.set(by.join(','), [...(groups.get(by.join(',')) ?? []), name]);
  }
  return [...groups.values()].filter((members) => members.length > 1);
}

/** one file of the modules, each a function run on its first require; their own files removed */
async function writePack(dir, pack, members, codeOf) {
  const modules = members.map(
    (name) =>
      `${JSON.stringify(name)}: function (exports, require, module, __filename, __dirname) {\n${codeOf(name)}\n}`,
  );
  await writeFile(
    join(dir, pack),
    `"use strict";\nvar __lbModules = {\n${modules.join(',\n')}\n};\n${LOADER}`,
  );
  for (const name of members) await rm(join(dir, name));
}

/** a pack's export: the exports of one of its modules, the module run the first time it is asked for */
const LOADER = `var __lbLoaded = {};
module.exports = function (name) {
  var loaded = __lbLoaded[name];
  if (loaded) return loaded.exports;
  loaded = __lbLoaded[name] = { exports: {} };
  var done = false;
  try {
    __lbModules[name].call(loaded.exports, loaded.exports, require, loaded, require("node:path").join(__dirname, name), __dirname);
    done = true;
  } finally {
    if (!done) delete __lbLoaded[name];
  }
  return loaded.exports;
};
`;
