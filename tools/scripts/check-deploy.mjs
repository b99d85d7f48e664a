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
// here first). Usage: node tools/scripts/check-deploy.mjs [--write] [--no-tests] [--dependencies]
//   --write         rewrite the generated files (and a stale Chart.lock) instead of failing
//   --no-tests      skip the chart unit tests (step 7)
//   --dependencies  only `helm dependency build` every chart (the chart unit tests' global setup)
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
import { StepError, bold, formatDuration, green, parseOptions, step } from './lib/log.mjs';
import { run } from './lib/proc.mjs';
import {
  CHECKOV_BIN,
  CHECKOV_VERSION,
  HELM_BIN,
  K8S_SCHEMAS_DIR,
  KUBECONFORM_BIN,
  KUBERNETES_VERSION,
  NX_ENV,
  ROOT,
  npmBin,
} from './lib/workspace.mjs';

const { values: flags } = parseOptions(
  'Usage: node tools/scripts/check-deploy.mjs [--write] [--no-tests] [--dependencies]',
  { write: { type: 'boolean' }, 'no-tests': { type: 'boolean' }, dependencies: { type: 'boolean' } },
);
const write = flags.write;

const HELM_DIR = path.join(ROOT, 'helm');
const OVERLAYS_DIR = path.join(ROOT, 'k8s', 'overlays');
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

// ---------------------------------------------------------------------------------------------

const started = Date.now();
const work = mkdtempSync(path.join(os.tmpdir(), 'oasis-check-deploy-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

const kubeVersion = KUBERNETES_VERSION.slice(1);
const check = (name, fn) => step(name, fn, { width: 20 });
let charts = [];
await check('tools and charts', async () => {
  const setup = [path.join(ROOT, 'tools', 'scripts', 'setup.mjs'), '--helm', '--quiet'];
  if ((await run(process.execPath, setup)).code !== 0) throw new StepError('setup.mjs --helm failed');
  charts = listCharts();
  return `${charts.length} charts`;
});
if (flags.dependencies) {
  await check('chart dependencies', async () => {
    await buildDependencies();
    return `${charts.filter((c) => c.dependsOn.length).length} charts`;
  });
  process.exit(0);
}
const applicationCharts = charts.filter((c) => !c.library);
const rendered = [];
/** What the security scan reads: the umbrella chart's renders (default values, each ci/*.yaml) and the overlays. */
const toScan = [];
/** Generated files that differ from what --write writes, each with why. */
const stale = [];

await check('generated files', async () => {
  const notes = [await syncServiceSchemas(), await syncNatsPermissions()];
  // The generated manifests are rendered from the charts, whose dependencies must be packaged.
  await buildDependencies();
  notes.push(await syncGenerated());
  if (stale.length) {
    const hint = 'Run node tools/scripts/check-deploy.mjs --write and commit the result';
    throw new StepError(`stale:\n  ${stale.join('\n  ')}\n${hint}`);
  }
  return notes.join(', ');
});

/**
 * `helm <command>` of each chart with its default values and with each ci/*.yaml, three at a time;
 * `then(result, chart, scenario)` takes each output. Resolves how many runs it made.
 */
async function helmEach(command, chartList, then = () => undefined) {
  const jobs = chartList.flatMap((chart) =>
    [undefined, ...chart.scenarios].map((scenario) => async () => {
      const args = [...command, chart.dir, '--kube-version', kubeVersion];
      if (scenario) args.push('-f', scenario);
      const result = await run(HELM_BIN, args, { capture: true });
      const what = `helm/${chart.name}` + (scenario ? ` -f ${path.relative(ROOT, scenario)}` : '');
      if (result.code !== 0) throw new StepError(`helm ${command[0]} ${what} failed`, result.output);
      then(result, chart, scenario);
    }),
  );
  const count = jobs.length;
  const workers = [1, 2, 3].map(async () => {
    while (jobs.length) await jobs.shift()();
  });
  await Promise.all(workers);
  return count;
}

await check('helm lint', async () => {
  const runs = await helmEach(['lint', '--strict'], charts);
  return `${charts.length} charts, ${runs} value sets`;
});

await check('helm template', async () => {
  const runs = await helmEach(['template', ...RELEASE], applicationCharts, (result, chart, scenario) => {
    const file = path.join(work, `helm--${chart.name}--${path.basename(scenario ?? 'default.yaml')}`);
    writeFileSync(file, result.stdout);
    rendered.push(file);
    if (chart.name === 'oasis198') toScan.push(file);
  });
  return `${applicationCharts.length} charts, ${runs} renders`;
});

await check('kustomize', async () => {
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
      const made = await run('sh', [generate], { capture: true });
      if (made.code !== 0)
        throw new StepError(`k8s/overlays/${overlay}/generate-secrets.sh failed`, made.output);
    }
    const result = await run(KUBECTL, ['kustomize', dir], { capture: true });
    if (result.code !== 0)
      throw new StepError(`kubectl kustomize k8s/overlays/${overlay} failed`, result.output);
    const file = path.join(work, `kustomize--${overlay}.yaml`);
    writeFileSync(file, result.stdout);
    rendered.push(file);
    toScan.push(file);
  }
  return `overlays ${overlays.join(', ')}`;
});

await check('Kubernetes schemas', async () => {
  const result = await run(
    KUBECONFORM_BIN,
    [
      '-strict',
      '-summary',
      '-kubernetes-version',
      kubeVersion,
      '-schema-location',
      K8S_SCHEMAS_DIR,
      ...rendered,
    ],
    { capture: true },
  );
  const summary = result.stdout.trim().split('\n').pop() ?? '';
  if (result.code !== 0) {
    throw new StepError('objects that the Kubernetes API would refuse', shorten(result.output));
  }
  const valid = /Valid: (\d+), Invalid: 0, Errors: 0, Skipped: 0/.exec(summary);
  if (!valid || valid[1] === '0') throw new StepError(`unexpected kubeconform summary: ${summary}`);
  return `${valid[1]} objects in ${rendered.length} renders valid for Kubernetes ${kubeVersion}`;
});

await check('security scan', async () => {
  const files = [...toScan].sort();
  if (!files.some((f) => path.basename(f).startsWith('helm--oasis198--')))
    throw new StepError('no render of helm/oasis198 to scan');
  // One run over every render, a file each (in one multi-document file, objects of the same name
  // in two renders would count once). --skip-download: offline, no guidelines fetched; --quiet
  // --compact: the report lists failed checks only, without code.
  const result = await run(
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
    { env: { LOG_LEVEL: 'WARNING' }, capture: true },
  );
  let reports;
  try {
    const parsed = JSON.parse(result.stdout);
    reports = Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    throw new StepError(
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
    throw new StepError(
      `${scanned}\nFix each, or skip it in the chart with a checkov.io/skip<n> annotation and a reason`,
      lines.join('\n'),
    );
  }
  if (!summary.passed) throw new StepError(`${scanned}: nothing was checked`);
  return `${counts} (checkov ${CHECKOV_VERSION}, ${what})`;
});

if (!flags['no-tests']) {
  await check('chart unit tests', async () => {
    const result = await run(npmBin('nx'), ['run', 'deploy-tests:test', '--outputStyle=static'], {
      env: NX_ENV,
      capture: true,
    });
    if (result.code !== 0) throw new StepError('chart unit tests failed', result.output);
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

/** Compares `text` with the committed `file`: rewrites the file with --write, else notes it as stale. */
function sync(file, text, why) {
  if (readIfExists(file) === text) return;
  if (!write) return void stale.push(`${path.relative(ROOT, file)} (${why})`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** `text` as Prettier formats `file`. */
async function prettierFormat(file, text) {
  const prettier = await import('prettier');
  return prettier.format(text, { ...(await prettier.resolveConfig(file)), filepath: file });
}

/** Every service chart's values.schema.json is the shared schema, byte for byte. */
function syncServiceSchemas() {
  const source = readFileSync(path.join(ROOT, SCHEMA_SOURCE), 'utf8');
  const services = applicationCharts.filter(
    (c) => c.dependsOn.length === 1 && c.dependsOn[0] === 'oasis-common',
  );
  for (const chart of services) {
    sync(path.join(chart.dir, 'values.schema.json'), source, `not a copy of ${SCHEMA_SOURCE}`);
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
  const file = path.join(ROOT, NATS_PERMISSIONS);
  const content = {
    $comment:
      'GENERATED by `node tools/scripts/check-deploy.mjs --write` from libs/contracts/src/permissions.ts; do not edit.',
    users: natsPermissions,
  };
  const why = 'libs/contracts/src/permissions.ts changed since it was written';
  sync(file, await prettierFormat(file, JSON.stringify(content)), why);
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
    let result = await run(HELM_BIN, ['dependency', 'build', chart.dir], { capture: true });
    const outOfSync = result.code !== 0 && /out of sync/.test(result.output);
    if (outOfSync && write)
      result = await run(HELM_BIN, ['dependency', 'update', chart.dir], { capture: true });
    if (result.code !== 0) {
      throw new StepError(
        `helm dependency build ${chart.name} failed` +
          (outOfSync ? ' (Chart.lock is stale: run node tools/scripts/check-deploy.mjs --write)' : ''),
        result.output,
      );
    }
  }
}

/** The kustomize files rendered from the umbrella chart match a fresh render. */
async function syncGenerated() {
  for (const target of GENERATED) {
    const chart = path.join(HELM_DIR, 'oasis198');
    const args = ['template', ...RELEASE, chart, '--kube-version', kubeVersion, ...target.args];
    const result = await run(HELM_BIN, args, { capture: true });
    if (result.code !== 0) throw new StepError(`rendering ${target.file} failed`, result.output);
    const file = path.join(ROOT, target.file);
    const header = [
      `# GENERATED by \`node tools/scripts/check-deploy.mjs --write\` from helm/oasis198; do not edit.`,
      `# ${target.about}`,
      `# helm template ${RELEASE[0]} helm/oasis198 ${target.args.join(' ')}`,
      '',
    ].join('\n');
    sync(
      file,
      await prettierFormat(file, header + result.stdout),
      'the charts changed since it was rendered',
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
  // Dependencies first: each round takes the charts whose dependencies are all taken.
  const ordered = [];
  found.sort((a, b) => a.name.localeCompare(b.name));
  while (ordered.length < found.length) {
    const ready = found.filter(
      (c) => !ordered.includes(c) && c.dependsOn.every((name) => ordered.some((o) => o.name === name)),
    );
    if (!ready.length) {
      const left = found.filter((c) => !ordered.includes(c)).map((c) => `helm/${c.name}`);
      throw new StepError(`missing or circular chart dependencies among ${left.join(', ')}`);
    }
    ordered.push(...ready);
  }
  return ordered;
}

/** What a render of the work folder is: "helm/oasis198 -f ci/x.yaml", "k8s/overlays/dev". */
function renderName(file = '') {
  const name = path.basename(file, '.yaml');
  const [kind, chart, values] = name.split('--');
  if (kind === 'kustomize') return `k8s/overlays/${chart}`;
  return `helm/${chart}` + (values === 'default' ? '' : ` -f ci/${values}.yaml`);
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
