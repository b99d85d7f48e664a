// The deployment checks: the tools' verdicts on the charts (helm lint, helm unittest of each chart's
// tests/, kubeconform, checkov), and what helm unittest cannot say (the kustomize overlays, checks
// across objects and value sets). helm and its plugin come from `npm run setup -- --helm` (global setup).
module.exports = require('../../jest.preset.cjs').project(__dirname, 'unit', {
  globalSetup: '<rootDir>/src/global-setup.ts',
  testTimeout: 30_000,
});
