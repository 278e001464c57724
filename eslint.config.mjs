// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Package boundaries: another package is imported by its name and through its exports map
// (@rewind/<name>[/<adapter>]), never by a path into its folder.
const PACKAGE_BOUNDARIES = [
  { regex: '^(\\.\\./)+(libs/|apps/)?[a-z-]+/(src|dist)(/|$)', message: 'Import another package by its name (@rewind/<name>), not by a path into its folder.' },
  { regex: '^@rewind/[a-z-]+/(src|dist)(/|$)', message: 'Import a package through its exports map, not from its src or dist folder.' },
];

export default tseslint.config(
  { ignores: ['dist/**', '**/dist/**', 'node_modules/**', 'coverage/**', 'data/**', '.bench/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
    },
  },
  {
    // Plain Node scripts (a bench that loads a checkout's built packages by path).
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        setTimeout: 'readonly',
        performance: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'test/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: PACKAGE_BOUNDARIES }] },
  },
  {
    // The domain stays pure: no framework, no I/O.
    files: ['libs/domain/**/*.ts'],
    ignores: ['libs/domain/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...PACKAGE_BOUNDARIES,
            { group: ['@nestjs/*', 'node:fs', 'node:net', 'node:http', 'pg', 'better-sqlite3', 'kafkajs', 'typeorm', '@rewind/*'] },
          ],
        },
      ],
    },
  },
);
