import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';
import { layerRules } from './eslint/layers.mjs';
import hotPath from './eslint/no-transitive-imports.mjs';

// The hot path (lib/ingress, with its signatures/ and filters/) must stay independent of the UI.
const uiImports = {
  patterns: [
    { group: ['react', 'react-dom', 'react/*', 'next/navigation', 'next/headers', 'next-auth', 'next-auth/*'], message: 'The ingress path must not depend on React, pages or next-auth.' },
    { group: ['@/components/*', '**/actions', '@/lib/domain/*/actions'], message: 'The ingress path must not import components or server actions.' },
  ],
};

// ...and, through any chain of imports, of the management code: the ingress
// runs what it needs of webhooks from lib/ingress/live.ts, not service.ts,
// which brings in definition files (yaml) and, through them, the run
// executors (child_process).
const hotPathTransitive = {
  forbidden: [
    { pattern: '@/lib/domain/webhooks/service', message: 'The hot path must not reach the webhook management rules; use lib/ingress/live.ts.' },
    { pattern: '@/lib/domain/definitions/*', message: 'The hot path must not reach the definition files.' },
    { pattern: '@/lib/domain/runs/executors*', message: 'The hot path must not reach the run executors.' },
    { pattern: '@/lib/domain/runs/worker', message: 'The hot path must not reach the run worker.' },
    { pattern: '@/components/*', message: 'The hot path must not reach components.' },
    { pattern: '@/lib/server/*', message: 'The hot path must not reach the composition root (lib/server).' },
    { pattern: 'yaml', message: 'The hot path must not load the YAML parser.' },
    { pattern: 'node:child_process', message: 'The hot path must not spawn processes.' },
    { pattern: 'child_process', message: 'The hot path must not spawn processes.' },
    { pattern: 'react', message: 'The hot path must not load React.' },
    { pattern: 'next-auth*', message: 'The hot path must not load next-auth.' },
  ],
};

const config = [
  { ignores: ['.next/**', '.next-*/**', 'dist/**', 'node_modules/**', 'lib/generated/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts'] },
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // The direction of lib/'s layers (eslint/layers.mjs).
  ...layerRules,
  {
    files: ['lib/ingress/**'],
    rules: { 'no-restricted-imports': ['error', uiImports] },
  },
  {
    files: ['lib/ingress/**', 'app/webhooks/**'],
    plugins: { 'hot-path': hotPath },
    rules: { 'hot-path/no-transitive-imports': ['error', hotPathTransitive] },
  },
  // A form submitted through React is a ClientForm: it cannot be submitted
  // natively before hydration (components/forms/client-form.tsx). A GET
  // search form that also works without React (method="get") is exempt.
  {
    files: ['app/**/*.tsx', 'components/**/*.tsx'],
    ignores: ['components/forms/client-form.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "JSXOpeningElement[name.name='form']:not(:has(JSXAttribute[name.name='method'][value.value='get'])) > JSXAttribute[name.name='onSubmit']",
          message: 'Use ClientForm from @/components/forms/client-form: a plain <form> can be submitted natively before React hydrates, putting its values in the URL.',
        },
        {
          // A server action is a request that can fail on the way (components/forms/reach.ts).
          selector: 'CallExpression[callee.type="Identifier"][callee.name=/Action$/]',
          message: 'Call a server action through reach() from @/components/forms/reach (reach(fooAction)(...)): a failed request then shows a message where the action was asked for, not an error page.',
        },
      ],
    },
  },
  {
    files: ['e2e/**'],
    rules: { 'react-hooks/rules-of-hooks': 'off', 'no-empty-pattern': 'off' },
  },
  // No test's verdict may depend on the machine's speed (decision 95): a
  // test waits within a budget scaled by the speed factor npm test measured,
  // polls for a condition rather than sleeping, and asserts no wall-clock
  // duration. A wait that is about time passing says so in a disable comment.
  {
    files: ['e2e/**/*.ts', '**/*.test.ts', 'tests/support/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "Property[key.name='timeout'][value.type='Literal']",
          message: 'A fixed timeout: use budget(ms) from scripts/speed.mjs, scaled by the speed factor.',
        },
        {
          selector: "CallExpression[callee.object.name='test'][callee.property.name='setTimeout'][arguments.0.type='Literal'], CallExpression[callee.name=/^(it|test)$/][arguments.2.type='Literal']",
          message: "A fixed test timeout: use budget(ms) from scripts/speed.mjs, scaled by the speed factor.",
        },
        {
          selector: "VariableDeclarator[id.name=/deadline|until|By$/i] > BinaryExpression[operator='+'][left.callee.property.name='now'][right.type='Literal']",
          message: "A wait loop's fixed deadline: use Date.now() + budget(ms) from scripts/speed.mjs.",
        },
        {
          selector: "CallExpression[callee.property.name='waitForTimeout']",
          message: 'A fixed wait: poll for the condition (expect.poll, toPass). If the test is about time passing, say so in a disable comment.',
        },
        {
          selector: "CallExpression[callee.name='expect'] > BinaryExpression[operator='-'] > CallExpression.left[callee.object.name=/^(Date|performance)$/][callee.property.name='now']",
          message: 'A wall-clock duration depends on the machine: bound it by what the product promises, or compare with a baseline measured in the same run, and print the figure.',
        },
      ],
    },
  },
];

export default config;
