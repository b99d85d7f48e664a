module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'service-kit.integration',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.integration.spec.ts'],
  testTimeout: 120000,
};
