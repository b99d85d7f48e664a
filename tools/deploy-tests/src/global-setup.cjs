// Before the chart tests: helm (installed by setup.mjs when missing) and every chart's packaged
// file:// dependencies, rebuilt so that an edit in helm/oasis-common reaches every chart; the
// deployment checks' own dependency build does both.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

module.exports = async function globalSetup() {
  const script = path.resolve(__dirname, '../../scripts/check-deploy.mjs');
  execFileSync(process.execPath, [script, '--dependencies'], { stdio: 'pipe' });
};
