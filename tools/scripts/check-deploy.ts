#!/usr/bin/env node
// Deployment checks, run by `npm test` (and on their own: npm run check-deploy): the
// Nx target deploy-tests:test (tools/deploy-tests). Its global setup runs setup.ts --helm and
// builds every chart's dependencies; checks.spec.ts checks the generated files, `helm lint
// --strict`s every chart, runs each chart's helm-unittest suites (helm/<chart>/tests: probes,
// security context, resources, PDB, HPA, NetworkPolicy rules of every service), validates every
// render against the Kubernetes API schemas (kubeconform) and scans them (checkov); the other specs
// are what those suites cannot say (NetworkPolicy reachability, the overlays, NATS users).
// Usage: npm run check-deploy -- [--write]
//   --write   rewrite the generated files (and a stale Chart.lock) instead of failing
import path from 'node:path';
import { parseOptions } from './lib/log.ts';
import { run } from './lib/proc.ts';
import { NX_ENV, ROOT, npmBin } from './lib/workspace.ts';

const { values } = parseOptions('Usage: npm run check-deploy -- [--write]', {
  write: { type: 'boolean' },
});
// On a fresh clone, node_modules (and Nx) first.
const setup = await run(process.execPath, [path.join(ROOT, 'tools', 'scripts', 'setup.ts'), '--quiet']);
const args = [
  'run',
  'deploy-tests:test',
  '--outputStyle=static',
  ...(values.write ? ['--skip-nx-cache'] : []),
];
const env = { ...NX_ENV, ...(values.write && { WRITE_GENERATED: '1' }) };
process.exit(setup.code || (await run(npmBin('nx'), args, { env })).code);
