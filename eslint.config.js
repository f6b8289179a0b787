import js from '@eslint/js'
import globals from 'globals'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/next-peer/.next/**', 'bench/next-peer/node_modules/**', 'bench/next-peer/next-env.d.ts', 'data/**', 'coverage/**', '.tap/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['client/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  // Boundaries (DESIGN.md §3): shared/ imports neither server/ nor client/; client/ never imports server/.
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/server/**', '**/client/**'], message: 'shared/ must not import server/ or client/.' }] }],
    },
  },
  {
    files: ['client/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/server/**'], message: 'client/ must not import server/.' },
            // Issue 15: the BFF draws the logos; the icon package is megabytes of paths (decision 024).
            { group: ['simple-icons', 'simple-icons/*'], message: 'Logos come from /logos/<id>.svg (shared/catalogue/logos.ts), never from simple-icons in client code.' },
          ],
        },
      ],
    },
  },
)
