// Before the chart tests: helm (installed by setup.mjs when missing) and every chart's packaged
// file:// dependencies, rebuilt so that an edit in helm/oasis-common reaches every chart.
const { execFileSync } = require('node:child_process');
const { existsSync, readFileSync, readdirSync } = require('node:fs');
const path = require('node:path');

module.exports = async function globalSetup() {
  const root = path.resolve(__dirname, '../../..');
  const helm = path.join(root, '.tools', 'bin', 'helm');
  if (!existsSync(helm) || !existsSync(path.join(root, '.tools', 'k8s-schemas'))) {
    execFileSync(process.execPath, [path.join(root, 'tools', 'scripts', 'setup.mjs'), '--helm', '--quiet'], {
      stdio: 'inherit',
    });
  }
  const helmDir = path.join(root, 'helm');
  const charts = readdirSync(helmDir).filter((name) => existsSync(path.join(helmDir, name, 'Chart.yaml')));
  const dependencies = (name) =>
    [
      ...readFileSync(path.join(helmDir, name, 'Chart.yaml'), 'utf8').matchAll(/file:\/\/\.\.\/([\w-]+)/g),
    ].map((m) => m[1]);
  const built = new Set();
  const build = (name) => {
    if (built.has(name)) return;
    built.add(name);
    const deps = dependencies(name);
    deps.forEach(build);
    if (deps.length) execFileSync(helm, ['dependency', 'build', path.join(helmDir, name)], { stdio: 'pipe' });
  };
  charts.forEach(build);
};
