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
      'import-x/no-restricted-paths': ['error', { zones: productToSandbox }],
    },
  },
  {
    files: ['packages/sandbox/**'],
    // resolve `./x.js` to the TypeScript source, so that the zones and import-x/no-cycle see every import
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: { 'import-x/no-restricted-paths': ['error', { zones: sandboxToProduct }] },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
);
