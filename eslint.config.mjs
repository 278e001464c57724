// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', '.bench/**'] },
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
    // The domain stays pure: no framework, no I/O.
    files: ['libs/domain/**/*.ts'],
    ignores: ['libs/domain/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['@nestjs/*', 'node:fs', 'node:net', 'node:http', 'pg', 'better-sqlite3', 'kafkajs', 'typeorm', '../../event-store/*', '../../engine/*'] },
      ],
    },
  },
);
