// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import globals from 'globals';

// The sandbox is a package of its own (packages/sandbox) that meets the product only over HTTP. The product loads
// it through its public entry, in one place (src/cli/sandbox-package.ts, a dynamic import), and never reaches into
// its files; the sandbox never imports the product's.
const sandboxEntryOnly = {
  patterns: [
    {
      group: ['**/sandbox/src/**', '**/packages/sandbox/**', '@ledgerbook/sandbox/*'],
      message:
        'the product reaches the sandbox only through its entry @ledgerbook/sandbox (src/cli/sandbox-package.ts): it meets the rest only over HTTP.',
    },
  ],
};
const productToSandbox = [
  {
    target: './src',
    from: './packages',
    message:
      'the product reaches the sandbox only through its entry @ledgerbook/sandbox (src/cli/sandbox-package.ts).',
  },
];
const sandboxToProduct = [
  {
    target: './packages/sandbox',
    from: ['./src', './test', './bench', './scripts'],
    message:
      'the sandbox never imports the product: what it needs it has its own (packages/sandbox/README.md).',
  },
];

/**
 * The product's layers, top to bottom (docs/architecture.md "Layers"): a file imports its own layer and the
 * layers below it, never one above; `validation` and `engine` stand side by side and share no code.
 */
const LAYERS = [
  { name: 'cli', files: ['src/cli/**'] },
  { name: 'validation', files: ['src/validation/**'], beside: 'engine' },
  { name: 'engine', files: ['src/engine/**'], beside: 'validation' },
  { name: 'steps', files: ['src/steps/**'] },
  { name: 'clients', files: ['src/clients/**'] },
  { name: 'playbook', files: ['src/playbook/**'] },
  { name: 'base', files: ['src/*.ts', 'src/dar/**'] },
];

function layerZones() {
  const zones = [];
  LAYERS.forEach((layer, index) => {
    const above = LAYERS.slice(0, index).filter((l) => l.name !== layer.beside);
    const sideways = LAYERS.filter((l) => l.name === layer.beside);
    for (const other of [...above, ...sideways]) {
      zones.push({
        target: layer.files,
        from: other.files,
        message: `${layer.name} is below ${other.name}: see docs/architecture.md "Layers"`,
      });
    }
  });
  return zones;
}

/** the CLI writes through src/cli/stdio.ts, which loads Node's streams only when they are needed */
const stdioStreams = ['stdout', 'stderr'].map((property) => ({
  object: 'process',
  property,
  message:
    "write through src/cli/stdio.ts (stdout, stderr): it keeps the order of writes and skips Node's streams for a pipe",
}));

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '.dist-*/**',
      '.import-ts-*/**',
      'node_modules/**',
      'coverage/**',
      '.ledgerbook/**',
      'test/fixtures/**',
      'packages/*/dist/**',
      'packages/*/.dist-*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { 'import-x': importX },
    // the sources import `./x.js` for `./x.ts`: without a resolver that knows it, the import rules see no file
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      'import-x/no-cycle': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      // the vendor's generated ledger types are a dev dependency for type checks only (test/contract/ledger-vendor-types.ts)
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@canton-network/core-ledger-client-types',
              message: 'a dev dependency for type checks only: import type, never a value',
              allowTypeImports: true,
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.name='eval']", message: 'no eval' },
        { selector: "NewExpression[callee.name='Function']", message: 'no Function constructor' },
      ],
    },
  },
  {
    files: ['src/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', sandboxEntryOnly],
      'import-x/no-restricted-paths': ['error', { zones: [...layerZones(), ...productToSandbox] }],
      'no-restricted-properties': ['error', ...stdioStreams],
    },
  },
  {
    // the one place that hands out Node's stdio streams
    files: ['src/cli/stdio.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // the one door: the product's only import of the sandbox's entry
    files: ['src/cli/sandbox-package.ts'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: layerZones() }] },
  },
  {
    files: ['packages/sandbox/**'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: sandboxToProduct }] },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
);
