import nx from '@nx/eslint-plugin';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import prettier from 'eslint-config-prettier';

/**
 * Module boundaries. Every project carries two tags:
 *  - scope: web (browser code), server (NestJS services and their libraries), shared (pure code both
 *    sides use), testing (what tests start and share: libs/testing), tooling (test and benchmark
 *    runners that drive the running system from outside);
 *  - type: app, util, contract.
 * Web never imports server code, services never import each other (apps are never importable),
 * only tests import the testing library, and everything may import the shared contracts and game
 * rules.
 */
const depConstraints = [
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  { sourceTag: 'scope:web', onlyDependOnLibsWithTags: ['scope:web', 'scope:shared'] },
  { sourceTag: 'scope:server', onlyDependOnLibsWithTags: ['scope:server', 'scope:shared'] },
  { sourceTag: 'scope:testing', onlyDependOnLibsWithTags: ['scope:testing', 'scope:shared'] },
  {
    sourceTag: 'scope:tooling',
    onlyDependOnLibsWithTags: ['scope:tooling', 'scope:testing', 'scope:server', 'scope:shared'],
  },
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:util', 'type:contract'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:contract'] },
  { sourceTag: 'type:contract', onlyDependOnLibsWithTags: ['type:contract', 'type:util'] },
];

/** The same, for tests and their helpers: server code's tests may also use the testing library. */
const testDepConstraints = depConstraints.map((constraint) =>
  constraint.sourceTag === 'scope:server'
    ? { ...constraint, onlyDependOnLibsWithTags: [...constraint.onlyDependOnLibsWithTags, 'scope:testing'] }
    : constraint,
);

/** Where tests and their helpers live. */
const testFiles = ['**/*.spec.ts', '**/*.test-client.ts', '**/*.fixtures.ts', '**/src/testing/**/*.ts'];

/** Packages that must never end up in the browser bundle. */
const serverOnlyPackages = [
  '@nestjs/*',
  'mongoose',
  'mongodb',
  'nats',
  'argon2',
  'jose',
  'pino',
  'prom-client',
  'testcontainers',
  'node:*',
];
/** Those packages banned in the projects of these tags. */
const banServerOnly = (...tags) =>
  tags.map((sourceTag) => ({ sourceTag, bannedExternalImports: serverOnlyPackages }));

/** The module-boundary rule with these options (the rest at their defaults: nothing allowed by path). */
const boundaries = (options) => ({ '@nx/enforce-module-boundaries': ['error', options] });

export default [
  {
    ignores: [
      // (ESLint itself ignores node_modules.)
      '**/dist',
      '**/coverage',
      '.nx',
      '.tools',
      '.data',
      '.run',
      '.artifacts',
      'tmp',
      '**/vite.config.*.timestamp*',
    ],
  },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.jsx', '**/*.mjs', '**/*.cjs'],
    rules: {
      ...boundaries({
        enforceBuildableLibDependency: true,
        depConstraints: [...depConstraints, ...banServerOnly('scope:web', 'scope:shared')],
      }),
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['apps/web/**/*.tsx', 'apps/web/**/*.ts'],
    plugins: { 'react-hooks': reactHooks, 'jsx-a11y': jsxA11y },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...jsxA11y.flatConfigs.recommended.rules,
    },
  },
  {
    // Tool configuration files reach the workspace presets by path.
    files: ['**/jest*.config.cjs', '**/webpack.config.js', '**/vite.config.ts', 'jest.preset.cjs'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    // Tests may use the testing library (and, for shared code, Node: no banned packages).
    files: testFiles,
    rules: boundaries({ depConstraints: [...testDepConstraints, ...banServerOnly('scope:web')] }),
  },
  {
    // The container and fuzzing tools share the command-line scripts' helpers in tools/scripts/lib
    // (paths, output, polling, test limits), and the bench plays with the container tools' bots.
    // Node runs them as they are, without the workspace's path aliases, so they import by path.
    files: ['tools/containers/src/**/*.ts', 'tools/fuzz/src/**/*.ts', 'tools/scripts/bench.ts'],
    rules: boundaries({ allow: ['../../scripts/lib/*', '../containers/src/players.ts'], depConstraints }),
  },
  {
    // The Kubernetes stage plays the container tools' bots, checks as their fault test does, and builds their images.
    files: ['tools/k8s/*.ts'],
    rules: boundaries({ allow: ['../containers/src/*'], depConstraints }),
  },
  {
    // The scripts poll and pick ports with the tests' own helpers, which use Node builtins only.
    files: ['tools/scripts/lib/net.ts'],
    rules: boundaries({ allow: ['../../../libs/testing/src/node-only/net.ts'], depConstraints }),
  },
  {
    // Node 24 runs these as they are and only strips what is marked as a type.
    files: [
      'tools/scripts/**/*.ts',
      'tools/bench/**/*.ts',
      'tools/bench/**/*.cts',
      'tools/containers/src/**/*.ts',
    ],
    rules: { '@typescript-eslint/consistent-type-imports': 'error' },
  },
  {
    // Command-line scripts print to the terminal by design.
    files: ['tools/**/*.mjs', 'tools/**/*.ts', 'apps/e2e/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  prettier,
];
