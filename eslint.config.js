// Type-aware lint for every execution context, plus the layer rules of docs/architecture.md:
// ui → app → platform → src/core → common; workers → common; server → common.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import vueParser from 'vue-eslint-parser';

const layer = (files, forbidden, message) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: forbidden.map((group) => ({ group: [group], message })) },
    ],
  },
});

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'models/', 'test-results/', 'playwright-report/', 'dev-dist/', 'e2e-build/', 'bench-results/', 'build/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...vue.configs['flat/recommended'],
  {
    languageOptions: {
      parser: vueParser,
      parserOptions: {
        parser: tseslint.parser,
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
        extraFileExtensions: ['.vue'],
      },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // A leading underscore marks a parameter that names a contract without using it.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
      // TypeScript resolves names itself, per execution context; this rule would only second-guess it.
      'no-undef': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  layer(
    ['src/core/**', 'common/**'],
    ['vue', 'vue/*', 'comlink', 'idb', 'onnxruntime-web', 'onnxruntime-web/*', 'node:*', '**/platform/**', '**/app/**', '**/ui/**', '**/workers/**', '**/server/**'],
    'src/core and common are pure: no DOM, Vue, workers, Node or adapters.',
  ),
  layer(['common/**'], ['**/src/**'], 'common is shared by the page, the workers and the server: it imports none of them.'),
  layer(['src/platform/**'], ['vue', '**/app/**', '**/ui/**', '**/server/**', 'node:*'], 'src/platform may use src/core and common only.'),
  layer(['src/app/**'], ['**/ui/**', '**/server/**', 'node:*'], 'src/app may use src/core, common and src/platform only.'),
  layer(['src/ui/**'], ['**/platform/**', '**/server/**', '**/workers/**', 'node:*'], 'src/ui uses src/app and src/core and common types, never adapters directly.'),
  layer(['workers/**'], ['vue', '**/src/**', '**/server/**', 'node:*'], 'workers may use common only.'),
  layer(['server/**'], ['vue', '**/src/**', '**/workers/**'], 'server may use common only.'),
  {
    // Plain http (HOST=0.0.0.0 on a LAN) is no secure context, and has no randomUUID: src/platform/newId.ts.
    files: ['src/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'crypto', property: 'randomUUID', message: 'Use newId (src/platform/newId.ts): randomUUID is missing where the page is not a secure context.' }],
    },
  },
  {
    files: ['test/**', '*.config.ts'],
    rules: { 'no-console': 'off' },
  },
);
