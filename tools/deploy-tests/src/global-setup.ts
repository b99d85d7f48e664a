// Before the chart checks: helm, kubeconform, the Kubernetes API schemas and checkov (setup.ts
// --helm, which skips what is in place), then every chart's packaged file:// dependencies, rebuilt
// in order so that an edit in helm/oasis-common reaches every chart. With WRITE_GENERATED=1
// (check-deploy.ts --write) a Chart.lock out of step with its Chart.yaml is rewritten
// (`helm dependency update`); otherwise the lock is left as it is, so its timestamp does not churn.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export default async function globalSetup(): Promise<void> {
  const setup = path.resolve(__dirname, '../../scripts/setup.ts');
  execFileSync(process.execPath, [setup, '--helm', '--quiet'], { stdio: 'pipe' });
  // After setup: k8s.ts reads the versions it recorded.
  const { helm, listCharts } = await import('./k8s');
  for (const chart of listCharts().filter((c) => c.dependsOn.length)) {
    try {
      helm(['dependency', 'build', chart.dir]);
    } catch (error) {
      const output = String((error as { stderr?: string }).stderr ?? error);
      const outOfSync = /out of sync/.test(output);
      if (outOfSync && process.env['WRITE_GENERATED'] === '1') helm(['dependency', 'update', chart.dir]);
      else {
        const hint = outOfSync ? ' (Chart.lock is stale: run npm run check-deploy -- --write)' : '';
        throw new Error(`helm dependency build helm/${chart.name} failed${hint}:\n${output}`);
      }
    }
  }
}
