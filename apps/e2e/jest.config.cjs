// Browser scenarios against a running stack (tools/scripts/e2e.mjs starts one and sets E2E_BASE_URL).
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'e2e',
  rootDir: __dirname,
  testEnvironment: '<rootDir>/jest.environment.cjs',
  testMatch: ['<rootDir>/src/**/*.e2e.ts'],
  // Real time passes (a 14 s turn runs out in scenario 7): each scenario sets its own budget.
  testTimeout: 60_000,
  slowTestThreshold: 60,
  // List every scenario, also when two files run at once.
  verbose: true,
};
