#!/usr/bin/env node
// Installs what the workspace needs, skipping every step that is already satisfied:
//   npm packages (npm ci, keyed by a hash of package-lock.json),
//   nats-server, Mailpit and the FerretDB launcher into .tools/bin (keyed by version / source hash),
//   helm, its helm-unittest plugin, kubeconform, the Kubernetes API schemas and checkov (--helm,
//   for the chart checks),
//   schemathesis (--fuzz, for the API fuzzing run), Debian's chromium (--chromium), and podman with
//   its API service, the test images and Docker Compose into .tools/bin (--containers).
// Independent steps run at the same time (see runSteps), each printing its line as it ends.
// Usage: npm run setup -- [--helm] [--fuzz] [--chromium] [--containers] [--quiet]
// Node builtins only: this runs before node_modules exists.
import { createHash } from 'node:crypto';
import {
  copyFileSync,
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
import { StepError, dim, formatDuration, parseOptions, printStepDone, printStepFailure } from './lib/log.ts';
import { hasCommand, run, withLock } from './lib/proc.ts';
import {
  DOCKER_COMPOSE_BIN,
  DOCKER_COMPOSE_VERSION,
  FERRETDB_BIN,
  HELM_BIN,
  HELM_PLUGINS_DIR,
  HELM_UNITTEST_BIN,
  HELM_UNITTEST_VERSION,
  HELM_VERSION,
  K8S_SCHEMAS_DIR,
  KUBECONFORM_BIN,
  KUBECONFORM_VERSION,
  KUBERNETES_VERSION,
  MAILPIT_BIN,
  MAILPIT_VERSION,
  NATS_SERVER_BIN,
  NATS_SERVER_VERSION,
  ROOT,
  TOOLS_BIN,
  pythonToolList,
  readIfExists,
  venvOf,
} from './lib/workspace.ts';

// Off unless given: a step listed with its flag runs only when asked for.
const flag = { type: 'boolean', default: false } as const;
const { values: flags } = parseOptions(
  'Usage: npm run setup -- [--helm] [--fuzz] [--chromium] [--containers] [--quiet]',
  { helm: flag, fuzz: flag, chromium: flag, containers: flag, quiet: flag },
);

const NODE_MODULES = path.join(ROOT, 'node_modules');
const NPM_STAMP = path.join(NODE_MODULES, '.oasis-setup-stamp');
const VERSIONS_FILE = path.join(TOOLS_BIN, '.versions.json');

/** The versions the steps recorded in VERSIONS_FILE, by name. */
const versions = (): Record<string, string> => JSON.parse(readIfExists(VERSIONS_FILE) ?? '{}');
const recordedVersion = (name: string) => versions()[name];

/** Records `version` for `name`, re-reading the file first: another step may have written meanwhile. */
/** A SHA-256 in hex: of the lockfile for npm's stamp, of a Python tool's list for its record. */
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

function recordVersion(name: string, version: string) {
  mkdirSync(TOOLS_BIN, { recursive: true });
  writeFileSync(VERSIONS_FILE, JSON.stringify({ ...versions(), [name]: version }, null, 2) + '\n');
}
const FERRETDB_SRC = path.join(ROOT, 'tools', 'ferretdb');

/**
 * Aborted when a step fails: no other step starts, and the go, npm and pip commands still running
 * are stopped (run's `abort`). apt-get (dpkg must not be interrupted) and the container tools are
 * left to finish first.
 */
const stopping = new AbortController();
const abort = stopping.signal;

// ---------------------------------------------------------------------------------------------
// Steps. Each returns undefined when nothing was needed, or a short note of what it did.

async function npmPackages() {
  const lockFile = path.join(ROOT, 'package-lock.json');
  const stamp = sha256(readFileSync(lockFile));
  if (existsSync(NODE_MODULES) && readIfExists(NPM_STAMP)?.trim() === stamp) return undefined;

  // node_modules installed by hand from the same lockfile (npm's own record matches): adopt it
  // instead of reinstalling under the feet of whatever else is using it.
  if (installedMatchesLock(lockFile)) {
    await ensureNativeModules({ rebuild: false });
    writeFileSync(NPM_STAMP, stamp + '\n');
    return 'matches package-lock.json';
  }

  notice('running npm ci');
  // The lockfile pins every version and checksum: what npm's cache holds is taken as it is, with no
  // revalidation round trip per package (46.6 s against 61 s for the install alone, cache warm).
  const args = ['ci', '--no-audit', '--no-fund', '--prefer-offline'];
  let result = await run('npm', args, { capture: true, abort });
  if (result.code !== 0 && onlyMissingPackages(result.output)) {
    // The registry this machine reaches need not hold the same set of other platforms' optional
    // binaries (e.g. @swc/core-darwin-arm64) as the one the lockfile was written against, and npm ci
    // then calls the lockfile out of sync. npm install from the same lockfile installs exactly it
    // for this platform; it may only add optional packages, and the committed lockfile is kept.
    notice('npm ci refuses the lockfile over optional packages of other platforms: npm install');
    const before = readFileSync(lockFile, 'utf8');
    let added: LockEntry[] | undefined;
    try {
      result = await run('npm', ['install', ...args.slice(1)], { capture: true, abort });
      added = addedPackages(before, readFileSync(lockFile, 'utf8'));
    } finally {
      writeFileSync(lockFile, before); // also when stopped
    }
    if (result.code === 0 && (added === undefined || added.some((entry) => !entry.optional))) {
      throw new StepError(
        'package-lock.json is out of sync with package.json: run npm install and commit it',
      );
    }
    args[0] = 'install';
  }
  if (result.code !== 0) throw new StepError(`npm ${args[0]} failed`, result.output);
  await ensureNativeModules({ rebuild: true });
  writeFileSync(NPM_STAMP, stamp + '\n');
  return `npm ${args[0]}`;
}

/**
 * npm 11 runs no dependency install scripts unless package.json's allowScripts approves them. None
 * is needed here: argon2 ships prebuilt binaries (node-gyp-build picks them at load time),
 * @swc/core and nx get their native code from platform packages, and the rest (cpu-features,
 * ssh2, @parcel/watcher builds, nx/protobufjs/@scarf postinstalls) are optional or telemetry.
 * This checks that the native modules really load and, with `rebuild`, rebuilds one with its script if not.
 */
async function ensureNativeModules({ rebuild }: { rebuild: boolean }) {
  for (const { name } of rebuild ? nativeModuleProblems() : []) {
    notice(`${name} does not load: rebuilding it with its install script`);
    // node-gyp builds against the headers of the Node.js that runs it (.tools/node carries them).
    const nodedir = path.dirname(path.dirname(process.execPath));
    const env = existsSync(path.join(nodedir, 'include', 'node', 'node.h'))
      ? { npm_config_nodedir: nodedir }
      : undefined;
    const args = ['rebuild', name, `--allow-scripts=${name}`];
    const result = await run('npm', args, { capture: true, env, abort });
    if (result.code !== 0) throw new StepError(`npm rebuild ${name} failed`, result.output);
  }
  const problems = nativeModuleProblems().map((p) => `\n  ${p.name}: ${p.error}`);
  if (problems.length) throw new StepError(`native modules do not load:${problems.join('')}`);
}

function nativeModuleProblems() {
  const req = createRequire(path.join(ROOT, 'package.json'));
  const checks = {
    argon2: () => req('argon2').hash,
    '@swc/core': () =>
      req('@swc/core').transformSync('const a: number = 1', { jsc: { parser: { syntax: 'typescript' } } }),
    nx: () => req('nx/src/native'),
  };
  return Object.entries(checks).flatMap(([name, check]) => {
    try {
      check();
      return [];
    } catch (error) {
      return [{ name, error: (error as Error).message.split('\n')[0] }];
    }
  });
}

/** npm ci's "not in sync" complaint, naming only packages missing from the lockfile. */
function onlyMissingPackages(output: string) {
  if (!/can only install packages when your package\.json and package-lock\.json/.test(output)) return false;
  const problems = output.split('\n').filter((line) => /^npm error (Missing|Invalid): /.test(line));
  return (
    problems.length > 0 &&
    problems.every((line) => /^npm error Missing: \S+ from lock file$/.test(line.trim()))
  );
}

/** A package of a lockfile (package-lock.json, node_modules/.package-lock.json). */
type LockEntry = { version?: string; optional?: boolean; devOptional?: boolean };
const packagesOf = (lockfile: string): Record<string, LockEntry> => JSON.parse(lockfile).packages ?? {};

/** The entries lockfile `after` adds to lockfile `before`, or undefined if it changes or drops any. */
function addedPackages(before: string, after: string) {
  const [old, now] = [packagesOf(before), packagesOf(after)];
  if (Object.entries(old).some(([key, entry]) => JSON.stringify(now[key]) !== JSON.stringify(entry)))
    return undefined;
  return Object.entries(now).flatMap(([key, entry]) => (key in old ? [] : [entry]));
}

/** npm keeps node_modules/.package-lock.json as its record of what is installed. */
function installedMatchesLock(lockFile: string) {
  const hidden = readIfExists(path.join(NODE_MODULES, '.package-lock.json'));
  if (!hidden) return false;
  try {
    const installed = packagesOf(hidden);
    return Object.entries(packagesOf(readFileSync(lockFile, 'utf8'))).every(([key, wanted]) => {
      if (!key.startsWith('node_modules/')) return true;
      const have = installed[key];
      // A missing optional package: e.g. another platform's binary.
      return have ? have.version === wanted.version : Boolean(wanted.optional || wanted.devOptional);
    });
  } catch {
    return false;
  }
}

async function natsServer() {
  return goTool('nats-server', `${NATS_SERVER_VERSION}+static`, NATS_SERVER_BIN, async () => {
    await go(['install', `github.com/nats-io/nats-server/v2@${NATS_SERVER_VERSION}`], ROOT);
  });
}

async function mailpit() {
  return goTool('mailpit', `${MAILPIT_VERSION}+static`, MAILPIT_BIN, async () => {
    await go(['install', `github.com/axllent/mailpit@${MAILPIT_VERSION}`], ROOT);
  });
}

/**
 * Docker Compose, built in its own module (as its Makefile does): `go install` refuses a module
 * whose go.mod has exclude directives, and these make its dependency versions.
 */
async function dockerCompose() {
  const module = `github.com/docker/compose/v5@${DOCKER_COMPOSE_VERSION}`;
  return goTool('docker-compose', `${DOCKER_COMPOSE_VERSION}+static`, DOCKER_COMPOSE_BIN, async () => {
    const dir = await goModule(module);
    const ldflags = `-w -X github.com/docker/compose/v5/internal.Version=${DOCKER_COMPOSE_VERSION}`;
    await go(['build', '-trimpath', '-ldflags', ldflags, '-o', DOCKER_COMPOSE_BIN, './cmd'], dir);
  });
}

async function ferretdbLauncher() {
  const files = filesUnder(FERRETDB_SRC)
    .filter((f) => f.endsWith('.go') || f === 'go.mod' || f === 'go.sum' || f.startsWith('_patches/'))
    .sort();
  const hash = createHash('sha256');
  for (const f of files) hash.update(f + '\0').update(readFileSync(path.join(FERRETDB_SRC, f)));
  const key = 'static-sources-' + hash.digest('hex').slice(0, 16);
  return goTool('ferretdb-launcher', key, FERRETDB_BIN, buildFerretdbLauncher, 'built from tools/ferretdb');
}

/** Paths of the files under a directory, relative to it. */
const filesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));

/**
 * Builds the launcher against FerretDB with our patches applied. tools/ferretdb/_patches holds
 * whole files laid out as in the FerretDB module (for the version in _patches/VERSION; the go
 * tool ignores directories starting with "_"). The build copies that module out of the module
 * cache, puts the patched files over it, and points a temporary go.mod (-modfile) at the copy with
 * a replace directive, so tools/ferretdb/go.mod stays the plain upstream requirement.
 */
async function buildFerretdbLauncher() {
  const MODULE = 'github.com/FerretDB/FerretDB';
  const patches = path.join(FERRETDB_SRC, '_patches');
  const wanted = readFileSync(path.join(patches, 'VERSION'), 'utf8').trim();
  const goMod = readFileSync(path.join(FERRETDB_SRC, 'go.mod'), 'utf8');
  const required = new RegExp(`(?:^|\\s)${MODULE.replace(/[./]/g, '\\$&')} (v\\S+)`, 'm').exec(goMod)?.[1];
  if (required !== wanted) {
    throw new StepError(
      `tools/ferretdb requires ${MODULE} ${required}, but tools/ferretdb/_patches is for ${wanted}: port the patches`,
    );
  }
  const work = mkdtempSync(path.join(os.tmpdir(), 'oasis-ferretdb-build-'));
  try {
    await go(['mod', 'download', `${MODULE}@${wanted}`], FERRETDB_SRC);
    const listed = await go(['list', '-m', '-f', '{{.Dir}}', MODULE], FERRETDB_SRC);
    const source = listed.trim().split('\n').pop() ?? '';
    if (!existsSync(path.join(source, 'go.mod')))
      throw new StepError(`cannot find ${MODULE} in the Go module cache`, listed);
    const copy = path.join(work, 'FerretDB');
    cpSync(source, copy, { recursive: true });
    await makeWritable(copy); // the module cache is read-only
    for (const file of filesUnder(patches).filter((f) => f !== 'VERSION' && f !== 'README.md')) {
      if (!existsSync(path.join(copy, file)))
        throw new StepError(`_patches/${file} patches no file of ${MODULE}`);
      copyFileSync(path.join(patches, file), path.join(copy, file));
    }
    const modfile = path.join(work, 'go.mod');
    writeFileSync(modfile, `${goMod}\nreplace ${MODULE} => ${copy}\n`);
    copyFileSync(path.join(FERRETDB_SRC, 'go.sum'), path.join(work, 'go.sum'));
    await go(['build', '-modfile', modfile, '-o', FERRETDB_BIN, '.'], FERRETDB_SRC);
  } finally {
    await makeWritable(work);
    rmSync(work, { recursive: true, force: true });
  }
}

const makeWritable = (dir: string) => run('chmod', ['-R', 'u+w', dir], { capture: true });

async function helm() {
  // The version flags of helm's own release build: without them `helm version` is empty and
  // helm assumes Kubernetes 1.20 (so `kubeVersion: >=1.27` in a chart would fail to render).
  const [major, minor] = KUBERNETES_VERSION.slice(1).split('.');
  const ldflags = [
    `-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`,
    ...['pkg/chartutil', 'pkg/lint/rules'].flatMap((pkg) => [
      `-X helm.sh/helm/v3/${pkg}.k8sVersionMajor=${major}`,
      `-X helm.sh/helm/v3/${pkg}.k8sVersionMinor=${minor}`,
    ]),
  ].join(' ');
  return goTool('helm', `${HELM_VERSION}+k8s${major}.${minor}`, HELM_BIN, async () => {
    await go(['install', '-ldflags', ldflags, `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`], ROOT);
  });
}

/**
 * The helm-unittest plugin, in the workspace's own plugin folder (HELM_PLUGINS_DIR, which the chart
 * tests pass as HELM_PLUGINS), never the user's. Built in its own module: `go install` refuses a
 * module whose go.mod has replace directives (its yaml-jsonpath fork).
 */
async function helmUnittest() {
  const module = `github.com/helm-unittest/helm-unittest@${HELM_UNITTEST_VERSION}`;
  // Rendering for the Kubernetes release the charts are checked against, as helm's own build does.
  const [major, minor] = KUBERNETES_VERSION.slice(1).split('.');
  const version = HELM_UNITTEST_VERSION.slice(1);
  const ldflags = [
    `-X github.com/helm-unittest/helm-unittest/internal/build.version=${version}`,
    `-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=${major}`,
    `-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=${minor}`,
  ].join(' ');
  const recorded = `${HELM_UNITTEST_VERSION}+k8s${major}.${minor}`;
  return goTool('helm-unittest', recorded, HELM_UNITTEST_BIN, async () => {
    const dir = await goModule(module);
    await go(
      ['build', '-trimpath', '-ldflags', ldflags, '-o', HELM_UNITTEST_BIN, './cmd/helm-unittest'],
      dir,
    );
    // The plugin's own plugin.yaml names a binary per platform and a download hook; this one runs ours.
    const manifest = [
      'name: unittest',
      `version: "${version}"`,
      'usage: unit tests of helm charts (helm/<chart>/tests/*_test.yaml)',
      'description: helm-unittest, built by tools/scripts/setup.ts',
      'ignoreFlags: false',
      'command: "$HELM_PLUGIN_DIR/untt"',
      '',
    ].join('\n');
    writeFileSync(path.join(HELM_PLUGINS_DIR, 'unittest', 'plugin.yaml'), manifest);
  });
}

async function kubeconform() {
  return goTool('kubeconform', KUBECONFORM_VERSION, KUBECONFORM_BIN, async () => {
    await go(['install', `github.com/yannh/kubeconform/cmd/kubeconform@${KUBECONFORM_VERSION}`], ROOT);
  });
}

/**
 * JSON schemas of every Kubernetes kind, for kubeconform, offline: the OpenAPI document of the
 * Kubernetes release (api/openapi-spec/swagger.json in the k8s.io/kubernetes Go module, fetched
 * through the Go module proxy), converted the way kubeconform expects them: one standalone file
 * per kind and version (references inlined), strict (no properties beyond the API's).
 */
async function kubernetesSchemas() {
  const dir = path.join(K8S_SCHEMAS_DIR, `${KUBERNETES_VERSION}-standalone-strict`);
  return goTool('kubernetes-schemas', KUBERNETES_VERSION, dir, async () => {
    const module = await goModule(`k8s.io/kubernetes@${KUBERNETES_VERSION}`, TOOLS_BIN);
    const swagger = JSON.parse(readFileSync(path.join(module, 'api/openapi-spec/swagger.json'), 'utf8'));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    let count = 0;
    for (const [file, schema] of kubernetesKindSchemas(swagger.definitions)) {
      writeFileSync(path.join(dir, file), JSON.stringify(schema));
      count++;
    }
    return `${count} kinds of Kubernetes ${KUBERNETES_VERSION}`;
  });
}

/** A JSON value as parsed (undefined: a missing entry). */
type Json = null | boolean | number | string | Json[] | Schema | undefined;
type Schema = { [key: string]: Json };
type GroupVersionKind = { group: string; version: string; kind: string };
type Definition = Schema & { 'x-kubernetes-group-version-kind'?: GroupVersionKind[] };

/** [file name, schema] of every kind: e.g. deployment-apps-v1.json, service-v1.json. */
function* kubernetesKindSchemas(definitions: Record<string, Definition>): Generator<[string, Json]> {
  // Fields typed int-or-string or quantity take numbers as well as strings in YAML.
  const special: Record<string, Schema> = {
    'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    'io.k8s.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
  };
  const expanded = new Map<string, Schema>();
  const expand = (node: Json, stack: string[]): Json => {
    if (Array.isArray(node)) return node.map((item) => expand(item, stack));
    if (!node || typeof node !== 'object') return node;
    if (typeof node.$ref === 'string') {
      const name = node.$ref.replace('#/definitions/', '');
      if (special[name]) return special[name];
      if (stack.includes(name)) return {}; // recursive (CustomResourceDefinition schemas)
      if (!expanded.has(name)) expanded.set(name, expand(definitions[name], [...stack, name]) as Schema);
      const { $ref: _ref, ...rest } = node;
      return Object.keys(rest).length ? { ...expanded.get(name), ...rest } : expanded.get(name);
    }
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] =
        key === 'properties'
          ? Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, expand(v, stack)]))
          : expand(value, stack);
    }
    if (out.properties && !('additionalProperties' in out)) out.additionalProperties = false;
    return out;
  };
  for (const [name, definition] of Object.entries(definitions)) {
    for (const gvk of definition['x-kubernetes-group-version-kind'] ?? []) {
      const group = gvk.group ? `-${gvk.group.split('.')[0]?.toLowerCase()}` : '';
      yield [
        `${gvk.kind.toLowerCase()}${group}-${gvk.version.toLowerCase()}.json`,
        expand(definition, [name]),
      ];
    }
  }
}

/**
 * Installs a Go-built binary (or fetches with Go what `install` makes) unless
 * .tools/bin/.versions.json says this version is there. Resolves `install`'s note, else `did`.
 */
async function goTool(
  name: string,
  version: string,
  binary: string,
  install: () => Promise<string | void>,
  did = `installed ${version}`,
) {
  if (recordedVersion(name) === version && existsSync(binary)) return undefined;
  if (!hasCommand('go')) {
    throw new StepError(
      `${name} needs Go (1.26, or 1.21+ which fetches 1.26) on the PATH: install it, then run npm run setup`,
    );
  }
  notice(`${name} ${version}: with Go`);
  mkdirSync(TOOLS_BIN, { recursive: true });
  const note = await install();
  recordVersion(name, version);
  return note || did;
}

/** Downloads a Go module (module@version) into the module cache; resolves its folder. */
async function goModule(module: string, cwd = ROOT) {
  const output = await go(['mod', 'download', '-json', module], cwd);
  // Past any "go: downloading" line (go's output comes with its stderr).
  return (JSON.parse(output.slice(output.indexOf('{'))) as { Dir: string }).Dir;
}

/** Runs go; resolves its output, throws when it fails. */
async function go(args: string[], cwd: string) {
  // GOBIN makes `go install` put the binary into .tools/bin; the module and build caches
  // (go env GOMODCACHE GOCACHE) are the user's own and are reused.
  // CGO off: static binaries, which the container images (FROM scratch) take as they are.
  const env = { GOBIN: TOOLS_BIN, CGO_ENABLED: '0' };
  const result = await run('go', args, { cwd, capture: true, env, abort });
  if (result.code !== 0) throw new StepError(`go ${args.join(' ')} failed`, result.output);
  return result.output;
}

/**
 * A Python tool from PyPI in a virtualenv of its own: python3 -m venv, then pip install of exactly
 * the packages tools/python/<name>.txt pins, the tool's own version and its dependencies (about a
 * minute the first time): their newer releases would otherwise come in unasked (checkov's uritools
 * went from 6.1.5 to 7.0.0 between two installs of the same checkov). A venv installed from the same
 * list is adopted as it is; a changed list installs a fresh one.
 */
function pythonTool(name: string, wanted: boolean): Step {
  const listFile = pythonToolList(name);
  const list = readFileSync(listFile, 'utf8');
  const version = new RegExp(`^${name}==(\\S+)$`, 'm').exec(list)?.[1] ?? '?';
  return { name: `${name} ${version}`, run: () => installPythonTool(name, version, listFile, list), wanted };
}

async function installPythonTool(name: string, version: string, listFile: string, list: string) {
  const shown = path.relative(ROOT, listFile);
  if (version === '?') throw new StepError(`${shown} does not pin ${name} itself (see its header)`);
  const venv = venvOf(name);
  const bin = path.join(venv, 'bin', name);
  // The version and the list it was installed from: a changed list installs again.
  const record = `${version}+${sha256(list).slice(0, 12)}`;
  if (recordedVersion(name) === record && runsHere(bin, venv)) return undefined;
  if (!hasCommand('python3')) {
    throw new StepError(`${name} needs Python 3.9+ (python3, with its venv module) on the PATH`);
  }
  const where = path.relative(ROOT, venv);
  notice(`${name} ${version}: python3 -m venv ${where}, pip install (about a minute)`);
  // A fresh venv each time: a list that drops a package leaves nothing of it behind.
  rmSync(venv, { recursive: true, force: true });
  const created = await run('python3', ['-m', 'venv', venv], { capture: true, abort });
  if (created.code !== 0) {
    throw new StepError('python3 -m venv failed (Debian: apt-get install python3-venv)', created.output);
  }
  const python = path.join(venv, 'bin', 'python');
  const pip = (...args: string[]) =>
    run(python, ['-m', 'pip', ...args, '--disable-pip-version-check'], { capture: true, abort });
  const installed = await pip('install', '--quiet', '--no-deps', '--requirement', listFile);
  if (installed.code !== 0) throw new StepError(`pip install of ${shown} failed`, installed.output);
  // Every package's own requirements are met by the list: nothing it leaves out is needed.
  const checked = await pip('check');
  if (checked.code !== 0) throw new StepError(`${shown} is incomplete`, checked.output);
  recordVersion(name, record);
  return `installed ${version}`;
}

/**
 * Whether a venv's script runs from where it is: its first line names the venv's python by full
 * path, so a venv whose checkout was moved or copied points elsewhere and is installed again.
 */
function runsHere(bin: string, venv: string): boolean {
  if (!existsSync(bin)) return false;
  const firstLine = readFileSync(bin, 'utf8').split('\n', 1)[0] ?? '';
  return firstLine === `#!${path.join(venv, 'bin', 'python')}`;
}

async function chromium() {
  if (existsSync('/usr/bin/chromium')) return undefined;
  await aptInstall(['chromium'], 'browser tests need chromium at /usr/bin/chromium');
  return 'apt-get install chromium';
}

/**
 * Podman (with runc, which this machine's cgroups need, and debootstrap for the base images), its
 * Docker-compatible API service for Testcontainers on .run/podman.sock, and the NATS and FerretDB
 * images the integration suites start (the other images are built by npm run images).
 */
async function containers() {
  const did = [];
  const missing = ['podman', 'runc', 'debootstrap'].filter((name) => !hasCommand(name));
  // Debian's podman networks through CNI, and its DNS plugin is a package of its own that podman
  // does not depend on: without it the stack's services cannot resolve each other by name.
  if (!existsSync('/usr/lib/cni/dnsname')) missing.push('golang-github-containernetworking-plugin-dnsname');
  if (missing.length) {
    await aptInstall(missing, 'the container stack and the Testcontainers suites need podman');
    did.push(`apt-get install ${missing.join(' ')}`);
  }
  const tool = (script: string, ...args: string[]) =>
    run(process.execPath, [path.join(ROOT, 'tools', 'containers', 'src', script), ...args], {
      capture: true,
    });
  const service = await tool('podman-service.ts', 'ensure');
  if (service.code !== 0) throw new StepError('podman API service', service.output);
  if (service.output.startsWith('started')) did.push('podman API service on .run/podman.sock');
  const images = await tool('images.ts', '--only', 'nats,ferretdb');
  if (images.code !== 0) throw new StepError('NATS and FerretDB images', images.output);
  if (!/nats:local.*up to date[\s\S]*ferretdb:local.*up to date/.test(images.output))
    did.push('NATS and FerretDB images');
  return did.length ? did.join(', ') : undefined;
}

/** apt-get install, as root or through sudo (which may ask for a password on the terminal). */
async function aptInstall(packages: string[], why: string) {
  if (!hasCommand('apt-get'))
    throw new StepError(`${why}; this system has no apt-get: install ${packages.join(', ')}`);
  const sudo = process.getuid?.() !== 0;
  if (sudo && !hasCommand('sudo')) {
    throw new StepError(`${why}: run as root, install sudo, or apt-get install ${packages.join(' ')}`);
  }
  notice(`apt-get update && apt-get install -y ${packages.join(' ')}`);
  const options = {
    env: { DEBIAN_FRONTEND: 'noninteractive' },
    capture: true,
    stdin: (sudo ? 'inherit' : 'ignore') as 'inherit' | 'ignore',
  };
  const aptGet = (args: string[]) =>
    sudo
      ? run('sudo', ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], options)
      : run('apt-get', args, options);
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...packages]]) {
    const result = await aptGet(args);
    if (result.code !== 0) throw new StepError(`apt-get ${args.join(' ')} failed`, result.output);
  }
}

// ---------------------------------------------------------------------------------------------

function notice(text: string) {
  console.log(dim(`  … ${text}`));
}

// ---------------------------------------------------------------------------------------------
// The steps run side by side, each once the steps it needs are done; the steps of a lane run one
// at a time, in the order listed. The Go builds share a lane (each one keeps both cores busy),
// nats-server and the launcher first: the podman step makes their images. npm and pip mostly wait
// on the network and the disk meanwhile. The apt-get steps share a lane (dpkg's lock). No step but
// npm's uses node_modules.

/** A step's line says "✓ <name>  <what it did> (<time>)"; one not `wanted` (its flag) is left out. */
type Step = { name: string; run: () => Promise<string | undefined>; wanted?: boolean };

const steps = {
  npm: { name: 'npm packages', run: npmPackages },
  hooks: { name: 'git hooks', run: gitHooks },
  nats: { name: `nats-server ${NATS_SERVER_VERSION}`, run: natsServer },
  ferretdb: { name: 'ferretdb-launcher', run: ferretdbLauncher },
  mailpit: { name: `mailpit ${MAILPIT_VERSION}`, run: mailpit },
  helm: { name: `helm ${HELM_VERSION}`, run: helm, wanted: flags.helm },
  compose: { name: `docker compose ${DOCKER_COMPOSE_VERSION}`, run: dockerCompose, wanted: flags.containers },
  kubeconform: { name: `kubeconform ${KUBECONFORM_VERSION}`, run: kubeconform, wanted: flags.helm },
  unittest: { name: `helm-unittest ${HELM_UNITTEST_VERSION}`, run: helmUnittest, wanted: flags.helm },
  schemas: { name: `Kubernetes ${KUBERNETES_VERSION} schemas`, run: kubernetesSchemas, wanted: flags.helm },
  checkov: pythonTool('checkov', flags.helm),
  schemathesis: pythonTool('schemathesis', flags.fuzz),
  chromium: { name: 'chromium', run: chromium, wanted: flags.chromium },
  containers: { name: 'podman and images', run: containers, wanted: flags.containers },
} satisfies Record<string, Step>;
const wanted: Step[] = Object.values(steps).filter(({ wanted = true }: Step) => wanted);
const width = Math.max(...wanted.map(({ name }) => name.length));

/** Runs the steps one after the other (a lane). */
const inTurn = (...lane: Step[]) =>
  lane.reduce((before, step) => before.then(() => runStep(step)), Promise.resolve());

// One setup at a time: npm test and npm start may both run it.
const succeeded = await withLock(
  path.join(ROOT, '.tools', '.setup.lock'),
  async () => {
    const goBuilds = inTurn(steps.nats, steps.ferretdb, steps.mailpit);
    await Promise.all([
      inTurn(steps.npm, steps.hooks),
      goBuilds.then(() => inTurn(steps.helm, steps.unittest, steps.kubeconform, steps.schemas)),
      inTurn(steps.checkov),
      inTurn(steps.schemathesis),
      Promise.all([goBuilds, inTurn(steps.chromium)]).then(() => inTurn(steps.containers, steps.compose)),
    ]);
    return !stopping.signal.aborted;
  },
  { onWait: (pid) => console.log(dim(`  … waiting for another setup (pid ${pid || '?'}) to finish`)) },
);
if (!succeeded) process.exit(1);

/**
 * Points git at tools/git-hooks (its commit-msg hook runs commitlint), once. A hooks path of the
 * developer's own is left alone, with a note; outside a git clone there is nothing to do.
 */
async function gitHooks() {
  const hooks = 'tools/git-hooks';
  if ((await run('git', ['rev-parse', '--git-dir'], { capture: true, abort })).code !== 0) return undefined;
  const current = await run('git', ['config', '--get', 'core.hooksPath'], { capture: true, abort });
  const value = current.stdout.trim();
  if (value === hooks) return undefined;
  if (value) return `core.hooksPath is ${value}: add tools/git-hooks/commit-msg there yourself`;
  const set = await run('git', ['config', 'core.hooksPath', hooks], { capture: true, abort });
  if (set.code !== 0) throw new StepError('git config core.hooksPath failed', set.output);
  return `core.hooksPath = ${hooks}`;
}

/**
 * Runs one step (if wanted) and prints its line (log.ts's). The first failure prints
 * "✗ <name>: <message>" and the end of its output, and stops the rest (see `stopping`). Never rejects.
 */
async function runStep(step: Step) {
  if (!wanted.includes(step) || stopping.signal.aborted) return; // not asked for, or another step failed
  const started = Date.now();
  try {
    printStepDone(step.name, await step.run(), started, { width, quiet: flags.quiet });
  } catch (caught) {
    if (stopping.signal.aborted && (caught as Error).name === 'AbortError') {
      const took = dim(`(${formatDuration(Date.now() - started)})`);
      console.error(`${dim('✗')} ${step.name.padEnd(width)}  ${dim('stopped')} ${took}`);
      return;
    }
    printStepFailure(step.name, caught);
    stopping.abort();
  }
}
