// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';

const layering = {
  patterns: [
    {
      group: ['**/sandbox/**', '**/sandbox'],
      message:
        'src/steps, src/clients, src/engine and src/playbook must not import the sandbox: it meets the rest only over HTTP.',
    },
  ],
};

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
    files: ['src/steps/**', 'src/clients/**', 'src/engine/**', 'src/playbook/**'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', layering] },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
);
