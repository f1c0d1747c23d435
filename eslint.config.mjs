import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

// The hot path (ingress, signatures, filters) must stay independent of the UI.
const uiImports = {
  patterns: [
    { group: ['react', 'react-dom', 'react/*', 'next/navigation', 'next/headers', 'next-auth', 'next-auth/*'], message: 'The ingress path must not depend on React, pages or next-auth.' },
    { group: ['@/components/*', '**/actions', '@/lib/*/actions'], message: 'The ingress path must not import components or server actions.' },
  ],
};

const config = [
  { ignores: ['.next/**', '.next-*/**', 'node_modules/**', 'lib/generated/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts'] },
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['lib/ingress/**', 'lib/signatures/**', 'lib/filters/**'],
    rules: { 'no-restricted-imports': ['error', uiImports] },
  },
  {
    files: ['e2e/**'],
    rules: { 'react-hooks/rules-of-hooks': 'off', 'no-empty-pattern': 'off' },
  },
];

export default config;
