module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'auth.integration',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.integration.spec.ts'],
  testTimeout: 120000,
};
