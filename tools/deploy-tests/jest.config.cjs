// Chart unit tests: render the Helm charts and the kustomize overlays, and assert on the objects
// what an SRE relies on. helm comes from `npm run setup -- --helm` (global setup).
module.exports = require('../../jest.preset.cjs').project(__dirname, 'unit', {
  globalSetup: '<rootDir>/src/global-setup.ts',
  testTimeout: 30_000,
});
