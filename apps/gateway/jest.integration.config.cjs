module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'gateway.integration',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.integration.spec.ts'],
  testTimeout: 120000,
};
