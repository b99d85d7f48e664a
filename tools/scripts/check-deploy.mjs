#!/usr/bin/env node
// Deployment checks, run by `npm test` (and on their own: node tools/scripts/check-deploy.mjs): the
// Nx target deploy-tests:test (tools/deploy-tests). Its global setup runs setup.mjs --helm and
// builds every chart's dependencies; checks.spec.ts checks the generated files, `helm lint
// --strict`s every chart, validates every render against the Kubernetes API schemas (kubeconform)
// and scans them (checkov); the other specs are the chart unit tests (probes, security context,
// resources, PDB, HPA, NetworkPolicy rules of every service).
// Usage: node tools/scripts/check-deploy.mjs [--write]
//   --write   rewrite the generated files (and a stale Chart.lock) instead of failing
import path from 'node:path';
import { parseOptions } from './lib/log.mjs';
import { run } from './lib/proc.mjs';
import { NX_ENV, ROOT, npmBin } from './lib/workspace.mjs';

const { values } = parseOptions('Usage: node tools/scripts/check-deploy.mjs [--write]', {
  write: { type: 'boolean' },
});
// On a fresh clone, node_modules (and Nx) first.
const setup = await run(process.execPath, [path.join(ROOT, 'tools', 'scripts', 'setup.mjs'), '--quiet']);
const args = [
  'run',
  'deploy-tests:test',
  '--outputStyle=static',
  ...(values.write ? ['--skip-nx-cache'] : []),
];
const env = { ...NX_ENV, ...(values.write && { WRITE_GENERATED: '1' }) };
process.exit(setup.code || (await run(npmBin('nx'), args, { env })).code);
