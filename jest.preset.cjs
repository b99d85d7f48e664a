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

module.exports = {
  testEnvironment: 'node',
  resolver: '@nx/jest/plugins/resolver',
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'cjs', 'json'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', swcOptions] },
  // ESM-only packages SWC compiles to CommonJS for Jest (Node itself loads them with require(esm)):
  // jose 6 (auth, gateway) and @noble/hashes (game-rules' SHA-256 and HMAC, so every project using it).
  transformIgnorePatterns: ['/node_modules/(?!(?:jose|@noble/hashes)/)'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  coverageReporters: ['text-summary', 'html'],
};
