// Shared Jest settings: SWC compiles TypeScript (with the decorator metadata NestJS needs) and
// Nx's resolver maps the @oasis198/* paths of tsconfig.base.json.
const swcOptions = {
  jsc: {
    target: 'es2022',
    parser: { syntax: 'typescript', tsx: true, decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, react: { runtime: 'automatic' } },
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

const base = {
  testEnvironment: 'node',
  resolver: '@nx/jest/plugins/resolver',
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'cjs', 'json'],
  transform: { '^.+\\.m?(t|j)sx?$': ['@swc/jest', swcOptions] },
  // ESM-only packages SWC compiles to CommonJS for Jest (Node itself loads them with require(esm)):
  // jose 6 (auth, gateway), @noble/hashes (game-rules' SHA-256 and HMAC, so every project using it),
  // eventsource-parser (the testing library's SSE client), and rettime, until-async and @open-draft
  // (MSW's, in the web tests).
  transformIgnorePatterns: [
    '/node_modules/(?!(?:jose|@noble/hashes|eventsource-parser|rettime|until-async|@open-draft)/)',
  ],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  coverageReporters: ['text-summary', 'html'],
};

// A project's Jest config, named after its folder. `unit` runs the project's src *.spec.ts files
// but the integration suites; `integration` runs only those (*.integration.spec.ts, against real
// NATS and MongoDB, with a long timeout). `extra` adds to it or overrides it.
function project(dir, kind = 'unit', extra = {}) {
  const name = require('node:path').basename(dir);
  const suites =
    kind === 'unit'
      ? {
          testMatch: ['<rootDir>/src/**/*.spec.ts'],
          testPathIgnorePatterns: [...base.testPathIgnorePatterns, '\\.integration\\.spec\\.ts$'],
        }
      : { testMatch: ['<rootDir>/src/**/*.integration.spec.ts'], testTimeout: 120_000 };
  return {
    ...base,
    displayName: kind === 'unit' ? name : `${name}.integration`,
    rootDir: dir,
    ...suites,
    ...extra,
  };
}

module.exports = { project };
