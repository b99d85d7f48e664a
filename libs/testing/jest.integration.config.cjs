// Integration suites (*.integration.spec.ts) against real NATS and MongoDB from startTestInfra();
// run by `nx run testing:integration` (in band, see nx.json).
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'testing:integration',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.integration.spec.ts'],
  testTimeout: 60_000,
};
