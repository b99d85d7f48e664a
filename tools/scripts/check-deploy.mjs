#!/usr/bin/env node
// Deployment checks, run by `npm test` (and on their own: node tools/scripts/check-deploy.mjs).
//   1. generated files are up to date: each service chart's values.schema.json (a copy of
//      helm/oasis-common/schemas/service-values.schema.json), the NATS users' permissions of
//      libs/contracts as helm/oasis198/files/nats-permissions.json, and the kustomize files
//      rendered from the umbrella chart (GENERATED below);
//   2. `helm dependency build` of every chart (file:// dependencies, offline), then
//      `helm lint --strict` of every chart with its default values and with each ci/*.yaml;
//   3. `helm template` of every application chart with its default values and each ci/*.yaml;
//   4. `kubectl kustomize` of every overlay under k8s/overlays (in a copy, after the overlay's
//      generate-secrets.sh, if any, has made its secrets);
//   5. every rendered object validated against the Kubernetes API schemas, offline (kubeconform,
//      strict: no field the API does not know);
//   6. the security scan: checkov's Kubernetes checks on the umbrella chart rendered with its
//      default values and each ci/*.yaml, and on the overlays; any failed check fails (a check the
//      charts skip carries its reason in a checkov.io/skip annotation);
//   7. the chart unit tests (Nx project deploy-tests: probes, security context, resources, PDB,
//      HPA, NetworkPolicy rules of every service).
// helm, kubeconform, the schemas and checkov come from `node tools/scripts/setup.mjs --helm` (run
// here when missing). Usage: node tools/scripts/check-deploy.mjs [--write] [--no-tests]
//   --write     rewrite the generated files (and a stale Chart.lock) instead of failing
//   --no-tests  skip the chart unit tests (step 7)
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { bold, dim, formatDuration, green, red } from './lib/log.mjs';
import { CHECKOV_BIN, CHECKOV_VERSION, HELM_BIN, ROOT, TOOLS_BIN } from './lib/workspace.mjs';

const USAGE = 'Usage: node tools/scripts/check-deploy.mjs [--write] [--no-tests]';
const flags = new Set(process.argv.slice(2));
for (const flag of flags) {
  if (!['--write', '--no-tests', '--help', '-h'].includes(flag)) fail(`unknown option ${flag}\n${USAGE}`);
}
if (flags.has('--help') || flags.has('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const write = flags.has('--write');

const HELM_DIR = path.join(ROOT, 'helm');
const OVERLAYS_DIR = path.join(ROOT, 'k8s', 'overlays');
const KUBECONFORM_BIN = path.join(TOOLS_BIN, 'kubeconform');
const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const SCHEMA_SOURCE = 'helm/oasis-common/schemas/service-values.schema.json';
const NATS_PERMISSIONS = 'helm/oasis198/files/nats-permissions.json';
const RELEASE = ['oasis198', '--namespace', 'oasis198'];

/**
 * Files rendered from the umbrella chart, committed, and checked for staleness: the kustomize
 * base is the chart's output, so the charts stay the one source of the manifests.
 */
const GENERATED = [
  {
    file: 'k8s/base/oasis198.yaml',
    args: ['-f', 'k8s/base/helm-values.yaml'],
    about:
      'Every Oasis 198 service, its Ingress and its NetworkPolicies (namespace oasis198: overlays set theirs).',
  },
  {
    file: 'k8s/overlays/dev/dependencies.yaml',
    args: [
      '-f',
      'k8s/base/helm-values.yaml',
      '--set',
      'global.nats.inCluster=true,global.mongodb.inCluster=true',
      '--show-only',
      'templates/nats.yaml',
      '--show-only',
      'templates/mongodb.yaml',
    ],
    about: 'Single-node NATS (JetStream) and MongoDB for the dev overlay.',
  },
];

class CheckError extends Error {
  constructor(message, output = '') {
    super(message);
    this.output = output;
  }
}

// ---------------------------------------------------------------------------------------------

const started = Date.now();
const work = mkdtempSync(path.join(os.tmpdir(), 'oasis-check-deploy-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

const tools = await ensureTools();
const kubeVersion = tools.kubernetesVersion.replace(/^v/, '');
const charts = listCharts();
const applicationCharts = charts.filter((c) => !c.library);
const rendered = [];
/** What the security scan reads: the umbrella chart's renders (default values, each ci/*.yaml) and the overlays. */
const toScan = [];

await step('generated files', async () => {
  const notes = [];
  notes.push(await syncServiceSchemas());
  notes.push(await syncNatsPermissions());
  // The generated manifests are rendered from the charts, whose dependencies must be packaged.
  await buildDependencies();
  notes.push(await syncGenerated());
  return notes.join(', ');
});

await step('helm lint', async () => {
  const jobs = charts.flatMap((chart) =>
    [undefined, ...chart.scenarios].map((scenario) => async () => {
      const args = ['lint', '--strict', '--kube-version', kubeVersion, chart.dir];
      if (scenario) args.push('-f', scenario);
      const result = await exec(HELM_BIN, args);
      if (result.code !== 0) {
        throw new CheckError(`helm lint ${label(chart, scenario)} failed`, result.output);
      }
    }),
  );
  await pool(jobs, 3);
  return `${charts.length} charts, ${jobs.length} value sets`;
});

await step('helm template', async () => {
  const jobs = applicationCharts.flatMap((chart) =>
    [undefined, ...chart.scenarios].map((scenario) => async () => {
      const args = ['template', ...RELEASE, chart.dir, '--kube-version', kubeVersion];
      if (scenario) args.push('-f', scenario);
      const result = await exec(HELM_BIN, args, { keepStderr: false });
      if (result.code !== 0) {
        throw new CheckError(`helm template ${label(chart, scenario)} failed`, result.output);
      }
      const file = path.join(work, `helm--${chart.name}--${path.basename(scenario ?? 'default.yaml')}`);
      writeFileSync(file, result.stdout);
      rendered.push(file);
      if (chart.name === 'oasis198') toScan.push(file);
    }),
  );
  await pool(jobs, 3);
  return `${applicationCharts.length} charts, ${jobs.length} renders`;
});

await step('kustomize', async () => {
  const overlays = readdirSync(OVERLAYS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  // A copy of k8s/, in which an overlay's generate-secrets.sh makes its secrets as an operator
  // would (the checkout's own secrets/, if any, stay out of it).
  const copy = path.join(work, 'k8s');
  cpSync(path.join(ROOT, 'k8s'), copy, { recursive: true, filter: (f) => path.basename(f) !== 'secrets' });
  for (const overlay of overlays) {
    const dir = path.join(copy, 'overlays', overlay);
    const generate = path.join(dir, 'generate-secrets.sh');
    if (existsSync(generate)) {
      const made = await exec('sh', [generate]);
      if (made.code !== 0)
        throw new CheckError(`k8s/overlays/${overlay}/generate-secrets.sh failed`, made.output);
    }
    const result = await exec(KUBECTL, ['kustomize', dir], {
      keepStderr: false,
    });
    if (result.code !== 0)
      throw new CheckError(`kubectl kustomize k8s/overlays/${overlay} failed`, result.output);
    const file = path.join(work, `kustomize--${overlay}.yaml`);
    writeFileSync(file, result.stdout);
    rendered.push(file);
    toScan.push(file);
  }
  return `overlays ${overlays.join(', ')}`;
});

await step('Kubernetes schemas', async () => {
  const result = await exec(KUBECONFORM_BIN, [
    '-strict',
    '-summary',
    '-output',
    'text',
    '-kubernetes-version',
    kubeVersion,
    '-schema-location',
    path.join(ROOT, '.tools', 'k8s-schemas'),
    ...rendered,
  ]);
  const summary = result.stdout.trim().split('\n').pop() ?? '';
  if (result.code !== 0) {
    throw new CheckError('objects that the Kubernetes API would refuse', shorten(result.output));
  }
  const valid = /Valid: (\d+), Invalid: 0, Errors: 0, Skipped: 0/.exec(summary);
  if (!valid || valid[1] === '0') throw new CheckError(`unexpected kubeconform summary: ${summary}`);
  return `${valid[1]} objects in ${rendered.length} renders valid for Kubernetes ${kubeVersion}`;
});

await step('security scan', async () => {
  const files = [...toScan].sort();
  if (!files.some((f) => path.basename(f).startsWith('helm--oasis198--')))
    throw new CheckError('no render of helm/oasis198 to scan');
  // One run over every render, a file each (in one multi-document file, objects of the same name
  // in two renders would count once). --skip-download: offline, no guidelines fetched; --quiet
  // --compact: the report lists failed checks only, without code.
  const result = await exec(
    CHECKOV_BIN,
    [
      '--framework',
      'kubernetes',
      '--output',
      'json',
      '--skip-download',
      '--quiet',
      '--compact',
      '--file',
      ...files,
    ],
    { env: { LOG_LEVEL: 'WARNING' }, keepStderr: false },
  );
  let reports;
  try {
    const parsed = JSON.parse(result.stdout);
    reports = Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    throw new CheckError(
      `checkov ${CHECKOV_VERSION} gave no JSON report (exit code ${result.code})`,
      result.output,
    );
  }
  const summary = { passed: 0, failed: 0, skipped: 0, parsing_errors: 0, resource_count: 0 };
  const failed = [];
  for (const report of reports) {
    for (const key of Object.keys(summary)) summary[key] += report.summary?.[key] ?? 0;
    failed.push(...(report.results?.failed_checks ?? []));
  }
  const counts = `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`;
  const what = `${files.length} renders of helm/oasis198 and k8s/overlays`;
  const scanned = `checkov ${CHECKOV_VERSION}: ${counts} on ${summary.resource_count} objects of ${what}`;
  if (summary.failed || failed.length || summary.parsing_errors) {
    const lines = failed.map(
      (check) =>
        `  ${check.check_id} ${check.check_name}: ${check.resource} (${renderName(check.file_path)})`,
    );
    if (summary.parsing_errors) lines.push(`  ${summary.parsing_errors} render(s) checkov could not parse`);
    throw new CheckError(
      `${scanned}\nFix each, or skip it in the chart with a checkov.io/skip<n> annotation and a reason`,
      lines.join('\n'),
    );
  }
  if (!summary.passed) throw new CheckError(`${scanned}: nothing was checked`);
  return `${counts} (checkov ${CHECKOV_VERSION}, ${what})`;
});

if (!flags.has('--no-tests')) {
  await step('chart unit tests', async () => {
    const nx = path.join(ROOT, 'node_modules', '.bin', 'nx');
    const result = await exec(nx, ['run', 'deploy-tests:test', '--outputStyle=static'], {
      env: { NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
    });
    if (result.code !== 0) throw new CheckError('chart unit tests failed', result.output);
    // eslint-disable-next-line no-control-regex
    const plain = result.output.replace(/\u001b\[[0-9;]*m/g, '');
    const tests = /Tests:\s+(.*)/.exec(plain)?.[1]?.trim();
    const cached = /local cache|existing outputs match the cache/.test(plain) ? ' (Nx cache)' : '';
    return `${tests ?? 'passed'}${cached}`;
  });
}

console.log(green(bold(`\nDeployment checks passed in ${formatDuration(Date.now() - started)}.`)));

// ---------------------------------------------------------------------------------------------
// Steps

/** helm, kubeconform, the Kubernetes schemas and checkov, installed by setup.mjs when missing. */
async function ensureTools() {
  const read = () => {
    try {
      return JSON.parse(readFileSync(path.join(TOOLS_BIN, '.versions.json'), 'utf8'));
    } catch {
      return {};
    }
  };
  let versions = read();
  const ready = () =>
    existsSync(HELM_BIN) &&
    existsSync(KUBECONFORM_BIN) &&
    versions['kubernetes-schemas'] &&
    existsSync(
      path.join(ROOT, '.tools', 'k8s-schemas', `${versions['kubernetes-schemas']}-standalone-strict`),
    ) &&
    versions['checkov'] === CHECKOV_VERSION &&
    existsSync(CHECKOV_BIN);
  if (!ready()) {
    console.log(
      dim('  … installing helm, kubeconform, the Kubernetes schemas and checkov (setup.mjs --helm)'),
    );
    const result = await exec(process.execPath, [
      path.join(ROOT, 'tools', 'scripts', 'setup.mjs'),
      '--helm',
      '--quiet',
    ]);
    if (result.code !== 0) fail(`setup.mjs --helm failed:\n${result.output}`);
    versions = read();
    if (!ready())
      fail('setup.mjs --helm did not install helm, kubeconform, the Kubernetes schemas and checkov');
  }
  return { kubernetesVersion: versions['kubernetes-schemas'] };
}

/** Every service chart's values.schema.json is the shared schema, byte for byte. */
async function syncServiceSchemas() {
  const source = readFileSync(path.join(ROOT, SCHEMA_SOURCE), 'utf8');
  const services = applicationCharts.filter(
    (c) => c.dependsOn.length === 1 && c.dependsOn[0] === 'oasis-common',
  );
  const stale = [];
  for (const chart of services) {
    const file = path.join(chart.dir, 'values.schema.json');
    if (readIfExists(file) === source) continue;
    if (write) writeFileSync(file, source);
    else stale.push(path.relative(ROOT, file));
  }
  if (stale.length) {
    throw new CheckError(
      `stale (not a copy of ${SCHEMA_SOURCE}): ${stale.join(', ')}\n` +
        'Run node tools/scripts/check-deploy.mjs --write',
    );
  }
  return `${services.length} service schemas`;
}

/**
 * The umbrella's NATS configuration takes each user's permissions from a JSON file: the
 * natsPermissions of libs/contracts (TypeScript, loaded through @swc-node/register), so the
 * subjects are defined once.
 */
async function syncNatsPermissions() {
  const require = createRequire(path.join(ROOT, 'package.json'));
  require('@swc-node/register');
  const { natsPermissions } = require(path.join(ROOT, 'libs', 'contracts', 'src', 'permissions.ts'));
  const prettier = await import('prettier');
  const file = path.join(ROOT, NATS_PERMISSIONS);
  const content = {
    $comment:
      'GENERATED by `node tools/scripts/check-deploy.mjs --write` from libs/contracts/src/permissions.ts; do not edit.',
    users: natsPermissions,
  };
  const options = { ...(await prettier.resolveConfig(file)), filepath: file };
  const text = await prettier.format(JSON.stringify(content), options);
  if (readIfExists(file) !== text) {
    if (!write) {
      throw new CheckError(
        `stale (libs/contracts/src/permissions.ts changed since it was written): ${NATS_PERMISSIONS}\n` +
          'Run node tools/scripts/check-deploy.mjs --write',
      );
    }
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return `${Object.keys(natsPermissions).length} NATS users`;
}

/**
 * `helm dependency build` in dependency order. A Chart.lock out of step with its Chart.yaml fails,
 * or with --write is rewritten (`helm dependency update`; otherwise the lock is left as it is, so
 * its timestamp does not churn).
 */
async function buildDependencies() {
  for (const chart of charts) {
    if (!chart.dependsOn.length) continue;
    let result = await exec(HELM_BIN, ['dependency', 'build', chart.dir]);
    const outOfSync = result.code !== 0 && /out of sync/.test(result.output);
    if (outOfSync && write) result = await exec(HELM_BIN, ['dependency', 'update', chart.dir]);
    if (result.code !== 0) {
      throw new CheckError(
        `helm dependency build ${chart.name} failed` +
          (outOfSync ? ' (Chart.lock is stale: run node tools/scripts/check-deploy.mjs --write)' : ''),
        result.output,
      );
    }
  }
}

/** The kustomize files rendered from the umbrella chart match a fresh render. */
async function syncGenerated() {
  const prettier = await import('prettier');
  const stale = [];
  for (const target of GENERATED) {
    const result = await exec(
      HELM_BIN,
      [
        'template',
        ...RELEASE,
        path.join(HELM_DIR, 'oasis198'),
        '--kube-version',
        kubeVersion,
        ...target.args,
      ],
      { keepStderr: false },
    );
    if (result.code !== 0) throw new CheckError(`rendering ${target.file} failed`, result.output);
    const file = path.join(ROOT, target.file);
    const header = [
      `# GENERATED by \`node tools/scripts/check-deploy.mjs --write\` from helm/oasis198; do not edit.`,
      `# ${target.about}`,
      `# helm template ${RELEASE[0]} helm/oasis198 ${target.args.join(' ')}`,
      '',
    ].join('\n');
    const options = { ...(await prettier.resolveConfig(file)), filepath: file };
    const text = await prettier.format(header + result.stdout, options);
    if (readIfExists(file) === text) continue;
    if (write) writeFileSync(file, text);
    else stale.push(target.file);
  }
  if (stale.length) {
    throw new CheckError(
      `stale (the charts changed since they were rendered): ${stale.join(', ')}\n` +
        'Run node tools/scripts/check-deploy.mjs --write and commit the result',
    );
  }
  return `${GENERATED.length} rendered manifests`;
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** helm/<chart>: its name, whether it is a library, its file:// dependencies and ci/ scenarios. */
function listCharts() {
  const found = readdirSync(HELM_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(HELM_DIR, d.name, 'Chart.yaml')))
    .map((d) => {
      const dir = path.join(HELM_DIR, d.name);
      const chartYaml = readFileSync(path.join(dir, 'Chart.yaml'), 'utf8');
      const ciDir = path.join(dir, 'ci');
      return {
        name: d.name,
        dir,
        library: /^type:\s*library\s*$/m.test(chartYaml),
        dependsOn: [...chartYaml.matchAll(/repository:\s*["']?file:\/\/\.\.\/([\w-]+)/g)].map((m) => m[1]),
        scenarios: existsSync(ciDir)
          ? readdirSync(ciDir)
              .filter((f) => /\.ya?ml$/.test(f))
              .sort()
              .map((f) => path.join(ciDir, f))
          : [],
      };
    });
  // Dependencies first.
  const ordered = [];
  const visit = (chart, trail = []) => {
    if (ordered.includes(chart)) return;
    if (trail.includes(chart.name)) fail(`dependency cycle: ${[...trail, chart.name].join(' -> ')}`);
    for (const name of chart.dependsOn) {
      const dependency = found.find((c) => c.name === name);
      if (!dependency) fail(`helm/${chart.name} depends on helm/${name}, which does not exist`);
      visit(dependency, [...trail, chart.name]);
    }
    ordered.push(chart);
  };
  found.sort((a, b) => a.name.localeCompare(b.name)).forEach((chart) => visit(chart));
  return ordered;
}

async function step(name, fn) {
  const stepStarted = Date.now();
  try {
    const note = await fn();
    console.log(
      `${green('✓')} ${name.padEnd(20)} ${note} ${dim(`(${formatDuration(Date.now() - stepStarted)})`)}`,
    );
  } catch (error) {
    console.error(`${red('✗')} ${bold(name)}: ${error.message}`);
    if (error.output) console.error(error.output.trimEnd());
    process.exit(1);
  }
}

/** Runs a command; resolves { code, stdout, output } (output: stdout and stderr together). */
function exec(command, args, { env, keepStderr = true } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code: code ?? 1, stdout, output: keepStderr || code ? stdout + stderr : stdout }),
    );
  });
}

/** Runs async jobs, at most `limit` at a time; rejects with the first failure. */
async function pool(jobs, limit) {
  const queue = [...jobs];
  const workers = Array.from({ length: Math.min(limit, queue.length) }, async () => {
    while (queue.length) await queue.shift()();
  });
  await Promise.all(workers);
}

/** What a render of the work folder is: "helm/oasis198 -f ci/x.yaml", "k8s/overlays/dev". */
function renderName(file = '') {
  const name = path.basename(file, '.yaml');
  const [kind, chart, values] = name.split('--');
  if (kind === 'kustomize') return `k8s/overlays/${chart}`;
  return `helm/${chart}` + (values === 'default' ? '' : ` -f ci/${values}.yaml`);
}

function label(chart, scenario) {
  return `helm/${chart.name}` + (scenario ? ` -f ${path.relative(ROOT, scenario)}` : '');
}

function shorten(output) {
  return output
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => line.replaceAll(work + path.sep, ''))
    .join('\n');
}

function readIfExists(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function fail(message) {
  console.error(red(`check-deploy: ${message}`));
  process.exit(1);
}
