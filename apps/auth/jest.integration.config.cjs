module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'auth.integration',
  rootDir: __dirname,
  // jose 6 is ESM-only: let SWC compile it to CommonJS for Jest (Node itself loads it with require(esm)).
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  testMatch: ['<rootDir>/src/**/*.integration.spec.ts'],
  testTimeout: 120000,
};
