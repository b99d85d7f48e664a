// The cluster's binaries, built from the Go module proxy into .tools/bin and recorded in
// .tools/bin/.versions.json like setup's Go tools: a pinned version that is there is not rebuilt.
//
// k8s.io/kubernetes and etcd's server cannot be `go install`ed: their go.mod replace their own
// modules with directories of their repositories (./staging, ../api), which the module proxy's
// zip leaves out. A wrapper module requires them and replaces each such module with its release.
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from '../scripts/lib/proc.ts';
import { StepError } from '../scripts/lib/log.ts';
import {
  COREDNS_VERSION,
  ETCD_VERSION,
  KUBE_ROUTER_VERSION,
  KUBERNETES_VERSION,
  readIfExists,
  ROOT,
  TOOLS_BIN,
} from '../scripts/lib/workspace.ts';

export const KUBE_BINARIES = [
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubelet',
  'kube-proxy',
  'kubectl',
] as const;
export const bin = (name: string) => path.join(TOOLS_BIN, name);

const VERSIONS_FILE = path.join(TOOLS_BIN, '.versions.json');
/** Built binaries kept per user and version, outside any clone (OASIS_CACHE_DIR moves it). */
const USER_CACHE =
  process.env.OASIS_CACHE_DIR ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'oasis198', 'k8s-bin');
const versions = (): Record<string, string> => JSON.parse(readIfExists(VERSIONS_FILE) ?? '{}');

/** Runs go with a throwaway build cache (the Kubernetes build leaves gigabytes in it). */
async function go(args: string[], cwd: string, cache: string) {
  const env = { CGO_ENABLED: '0', GOCACHE: cache, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };
  const result = await run('go', args, { cwd, capture: true, env });
  if (result.code !== 0) throw new StepError(`go ${args.join(' ')} failed`, result.output);
  return result.output;
}

/** Builds with `build(dir, cache)` unless `name` is recorded at `version` and `binaries` exist. */
async function tool(
  name: string,
  version: string,
  binaries: string[],
  build: (dir: string, cache: string) => Promise<void>,
) {
  // A clone on a machine that built them before copies them from the user's cache (as Go reuses
  // its module cache): a fresh clone then starts the cluster in seconds, not 10 minutes.
  const cached = path.join(USER_CACHE, `${name}-${version}`);
  const keep = () => {
    mkdirSync(cached, { recursive: true });
    for (const b of binaries) copyFileSync(bin(b), path.join(cached, b));
  };
  if (versions()[name] === version && binaries.every((b) => existsSync(bin(b)))) {
    if (!binaries.every((b) => existsSync(path.join(cached, b)))) keep();
    return false;
  }
  mkdirSync(TOOLS_BIN, { recursive: true });
  if (binaries.every((b) => existsSync(path.join(cached, b)))) {
    for (const b of binaries) copyFileSync(path.join(cached, b), bin(b));
    writeFileSync(VERSIONS_FILE, JSON.stringify({ ...versions(), [name]: version }, null, 2) + '\n');
    console.log(`✓ ${name} ${version} from ${cached}`);
    return true;
  }
  const started = Date.now();
  console.log(`… building ${name} ${version} with Go (Kubernetes: about 10 minutes the first time)`);
  const dir = mkdtempSync(path.join(os.tmpdir(), `oasis-${name}-build-`));
  try {
    mkdirSync(TOOLS_BIN, { recursive: true });
    // K8S_BUILD_GOCACHE keeps the build cache for the next build (a relink then takes under a minute).
    await build(dir, process.env.K8S_BUILD_GOCACHE || path.join(dir, 'gocache'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  keep();
  writeFileSync(VERSIONS_FILE, JSON.stringify({ ...versions(), [name]: version }, null, 2) + '\n');
  console.log(`✓ ${name} ${version} in ${Math.round((Date.now() - started) / 1000)} s`);
  return true;
}

/** go.mod's `replace X => ./dir` (or ../dir) lines of a module in the module cache: the module paths. */
async function localReplaces(module: string, dir: string, cache: string) {
  const output = await go(['mod', 'download', '-json', module], dir, cache);
  const moduleDir = JSON.parse(output.slice(output.indexOf('{'))).Dir as string;
  const goMod = readFileSync(path.join(moduleDir, 'go.mod'), 'utf8');
  return [...goMod.matchAll(/^\s*(?:replace\s+)?(\S+)\s+=>\s+\.\.?\/(?!FORBIDDEN)\S+\s*$/gm)].map(
    (m) => m[1] as string,
  );
}

function wrapperModule(dir: string, requires: string[], replaces: Array<[string, string]>) {
  const lines = [
    'module oasis.local/build',
    '',
    'go 1.26.0',
    '',
    `require (\n${requires.map((r) => `\t${r}`).join('\n')}\n)`,
    '',
    `replace (\n${replaces.map(([m, v]) => `\t${m} => ${m} ${v}`).join('\n')}\n)`,
    '',
  ];
  writeFileSync(path.join(dir, 'go.mod'), lines.join('\n'));
}

export async function buildKubernetes() {
  return tool('kubernetes', KUBERNETES_VERSION, [...KUBE_BINARIES], async (dir, cache) => {
    const module = `k8s.io/kubernetes@${KUBERNETES_VERSION}`;
    writeFileSync(path.join(dir, 'go.mod'), 'module oasis.local/build\n\ngo 1.26.0\n');
    // The staging modules are released as k8s.io/<name> v0.<minor>.<patch>.
    const staging = `v0${KUBERNETES_VERSION.slice(2)}`;
    const replaces = (await localReplaces(module, dir, cache)).map((m): [string, string] => [m, staging]);
    if (replaces.length === 0) throw new StepError(`no ./staging module found in ${module}'s go.mod`);
    wrapperModule(dir, [`k8s.io/kubernetes ${KUBERNETES_VERSION}`], replaces);
    const [major, minor] = KUBERNETES_VERSION.slice(1).split('.');
    // Without them every component reports v0.0.0 (and kubectl refuses to talk to the server).
    const stamp = (pkg: string) => [
      `-X ${pkg}.gitVersion=${KUBERNETES_VERSION}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
    ];
    const ldflags = [
      '-s -w',
      ...stamp('k8s.io/component-base/version'),
      ...stamp('k8s.io/client-go/pkg/version'),
    ];
    const packages = KUBE_BINARIES.map((b) => `k8s.io/kubernetes/cmd/${b}`);
    await go(
      ['build', '-trimpath', '-ldflags', ldflags.join(' '), '-o', TOOLS_BIN + '/', ...packages],
      dir,
      cache,
    );
  });
}

export async function buildEtcd() {
  return tool('etcd', ETCD_VERSION, ['etcd', 'etcdctl'], async (dir, cache) => {
    writeFileSync(path.join(dir, 'go.mod'), 'module oasis.local/build\n\ngo 1.26.0\n');
    const server = `go.etcd.io/etcd/server/v3@${ETCD_VERSION}`;
    const replaces = (await localReplaces(server, dir, cache)).map((m): [string, string] => [
      m,
      ETCD_VERSION,
    ]);
    wrapperModule(
      dir,
      [`go.etcd.io/etcd/server/v3 ${ETCD_VERSION}`, `go.etcd.io/etcd/etcdctl/v3 ${ETCD_VERSION}`],
      replaces,
    );
    await go(
      ['build', '-trimpath', '-ldflags', '-s -w', '-o', bin('etcd'), 'go.etcd.io/etcd/server/v3'],
      dir,
      cache,
    );
    await go(
      ['build', '-trimpath', '-ldflags', '-s -w', '-o', bin('etcdctl'), 'go.etcd.io/etcd/etcdctl/v3'],
      dir,
      cache,
    );
  });
}

/** `go install package@version` into .tools/bin. */
async function goInstall(packageAtVersion: string, cwd: string, cache: string) {
  const args = ['install', '-trimpath', '-ldflags', '-s -w', packageAtVersion];
  const result = await run('go', args, {
    cwd,
    capture: true,
    env: { CGO_ENABLED: '0', GOCACHE: cache, GOBIN: TOOLS_BIN, GOTOOLCHAIN: 'local' },
  });
  if (result.code !== 0) throw new StepError(`go ${args.join(' ')} failed`, result.output);
}

export async function buildCoreDns() {
  return tool('coredns', COREDNS_VERSION, ['coredns'], (dir, cache) =>
    goInstall(`github.com/coredns/coredns@${COREDNS_VERSION}`, dir, cache),
  );
}

export async function buildKubeRouter() {
  return tool('kube-router', KUBE_ROUTER_VERSION, ['kube-router'], (dir, cache) =>
    goInstall(`github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@${KUBE_ROUTER_VERSION}`, dir, cache),
  );
}

/** The pod sandbox image's program (tools/k8s/pause), keyed by its source. */
export async function buildPause() {
  const source = path.join(ROOT, 'tools', 'k8s', 'pause');
  const key = `source-${createHash('sha256')
    .update(readFileSync(path.join(source, 'main.go')))
    .digest('hex')
    .slice(0, 16)}`;
  return tool('k8s-pause', key, ['k8s-pause'], async (_dir, cache) => {
    await go(['build', '-trimpath', '-ldflags', '-s -w', '-o', bin('k8s-pause'), '.'], source, cache);
  });
}
