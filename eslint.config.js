// ESLint flat config: recommended JS and TypeScript rules over src, test, bench and scripts.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/.cache/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly', AbortSignal: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URLSearchParams: 'readonly', TextDecoder: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
      // Node 20's AbortSignal.any holds its sources weakly: an AbortSignal.timeout among them is
      // collected before it fires (src/core/deadline.ts). A time and a caller's signal go through `deadline`.
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.object.name='AbortSignal'][callee.property.name='any']", message: 'AbortSignal.any loses a timeout once it is collected: use deadline() from src/core/deadline.ts' }],
    },
  },
);
