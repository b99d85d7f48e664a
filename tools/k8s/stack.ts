// `npm run stack:k8s`: Oasis 198 on a real one-node Kubernetes cluster run from binaries built
// from source (see build.ts), the way Kubernetes' hack/local-up-cluster.sh runs one: etcd,
// kube-apiserver (certificates made here), kube-controller-manager, kube-scheduler, Debian's
// containerd with runc, kubelet, kube-proxy (iptables), the bridge CNI plugin, CoreDNS and
// kube-router's firewall, which enforces the NetworkPolicies (iptables and ipset). The
// images `npm run images` builds are loaded into containerd, then the umbrella chart is installed
// with Helm. `-- down` stops everything and removes what the node left behind.
//
// Everything runs as root on this machine, under .run/k8s (state, logs, volumes; removed by down).
// The cluster's addresses are private ranges routed only on this machine; the API server listens
// on the address of the default route's interface, which the pods reach it on.
//
// Usage: node tools/k8s/stack.ts [up [-f values.yaml...] | down | status]
// tools/k8s/ci.ts (the Kubernetes stage of `npm test`) imports up, down and kubectl from here.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildCoreDns, buildEtcd, buildKubeRouter, buildKubernetes, buildPause, bin } from './build.ts';
import { bold, dim, formatDuration, green, red, StepError } from '../scripts/lib/log.ts';
import { isRunning, run, stopProcess } from '../scripts/lib/proc.ts';
import { COREDNS_VERSION, HELM_BIN, readIfExists, ROOT, RUN_DIR } from '../scripts/lib/workspace.ts';

export const STATE = path.join(RUN_DIR, 'k8s');
const PKI = path.join(STATE, 'pki');
const LOGS = path.join(STATE, 'logs');
const VOLUMES = path.join(STATE, 'volumes');
const PIDS_FILE = path.join(STATE, 'pids.json');
const POD_LOGS = path.join(STATE, 'pod-logs');
/** Where kubelet links every container's log (fixed in kubelet). */
const CONTAINER_LOG_LINKS = '/var/log/containers';
export const CONTAINERD_SOCK = path.join(STATE, 'containerd', 'containerd.sock');
export const ADMIN_KUBECONFIG = path.join(STATE, 'admin.kubeconfig');
const HERE = path.join(ROOT, 'tools', 'k8s');

const NODE_NAME = 'oasis-k8s';
const POD_CIDR = '10.244.0.0/24';
const SERVICE_CIDR = '10.96.0.0/24';
const API_SERVICE_IP = '10.96.0.1';
const DNS_IP = '10.96.0.10';
const BRIDGE = 'oasisk8s0';
const ETCD_PORT = 2379;
const ETCD_PEER_PORT = 2380;
const API_PORT = 6443;
export const NAMESPACE = 'oasis198';

export const images = {
  pause: 'localhost/oasis198/pause:local',
  coredns: `localhost/oasis198/coredns:${COREDNS_VERSION}`,
  nats: 'localhost/oasis198/nats-k8s:local',
  node: 'localhost/oasis198/node:24-bookworm',
  ferretdb: 'localhost/oasis198/ferretdb:local',
};
const APP_IMAGES = ['gateway', 'auth', 'rewards', 'rooms', 'game-timer', 'tournaments', 'web'].map(
  (name) => `localhost/oasis198/${name}:local`,
);

// Started in this order, stopped in the reverse one.
const COMPONENTS = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'containerd',
  'kubelet',
  'kube-proxy',
  'kube-router',
] as const;
type Component = (typeof COMPONENTS)[number];

const pids = (): Partial<Record<Component, number>> => JSON.parse(readIfExists(PIDS_FILE) ?? '{}');
const executableOf = (name: Component) => (name === 'containerd' ? 'containerd' : bin(name));

/** Runs a command; throws with its output when it fails. Resolves stdout. */
async function sh(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const result = await run(command, args, { ...options, capture: true });
  if (result.code !== 0) throw new StepError(`${command} ${args.join(' ')} failed`, result.output);
  return result.stdout;
}

export const kubectl = (...args: string[]) => sh(bin('kubectl'), ['--kubeconfig', ADMIN_KUBECONFIG, ...args]);

/** The address of the interface the default route leaves by (stays on this machine). */
function hostAddress() {
  const route = spawnSync('ip', ['-4', 'route', 'get', '10.255.255.254'], { encoding: 'utf8' }).stdout;
  const address = /\bsrc (\d+\.\d+\.\d+\.\d+)/.exec(route)?.[1];
  if (!address) throw new StepError('no IPv4 address to run the API server on (ip route get)', route);
  return address;
}

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await fn();
  console.log(`${green('✓')} ${name} ${dim(formatDuration(Date.now() - started))}`);
  return result;
}

/** Polls `check` until it resolves true, or throws after `timeoutMs` naming `what`. */
async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 120_000) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(500)) {
    if (await Promise.resolve(check()).catch(() => false)) return;
  }
  throw new StepError(`timed out waiting for ${what} (logs: ${path.relative(ROOT, LOGS)})`);
}

// ---------------------------------------------------------------------------------------------
// Host prerequisites

async function hostPackages() {
  // kube-router's firewall keeps the pods it selects in ipsets.
  const missing = ['containerd', 'runc', 'ipset'].filter(
    (c) => spawnSync('sh', ['-c', `command -v ${c} || test -x /usr/sbin/${c}`]).status !== 0,
  );
  if (!existsSync('/usr/lib/cni/bridge')) missing.push('containernetworking-plugins');
  if (missing.length === 0) return;
  const packages = ['containerd', 'runc', 'ipset', 'containernetworking-plugins'];
  console.log(`… apt-get install ${packages.join(' ')}`);
  await sh('apt-get', ['install', '-y', ...packages], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
}

async function kernelSettings() {
  if (!existsSync('/proc/sys/net/bridge/bridge-nf-call-iptables')) await sh('modprobe', ['br_netfilter']);
  writeFileSync('/proc/sys/net/ipv4/ip_forward', '1');
  writeFileSync('/proc/sys/net/bridge/bridge-nf-call-iptables', '1');
}

// ---------------------------------------------------------------------------------------------
// Certificates and kubeconfigs (openssl), made for every start

async function certificates(address: string) {
  mkdirSync(PKI, { recursive: true });
  const p = (file: string) => path.join(PKI, file);
  const ecKey = (file: string) =>
    sh('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', p(file)]);
  await ecKey('ca.key');
  await sh('openssl', [
    'req',
    '-x509',
    '-new',
    '-key',
    p('ca.key'),
    '-out',
    p('ca.crt'),
    '-days',
    '30',
    '-subj',
    '/CN=oasis-k8s-ca',
  ]);
  // The service account token signing key pair.
  await ecKey('sa.key');
  await sh('openssl', ['pkey', '-in', p('sa.key'), '-pubout', '-out', p('sa.pub')]);
  const sign = async (name: string, subject: string, usage: string, sans = '') => {
    await ecKey(`${name}.key`);
    await sh('openssl', [
      'req',
      '-new',
      '-key',
      p(`${name}.key`),
      '-out',
      p(`${name}.csr`),
      '-subj',
      subject,
    ]);
    const ext = [`extendedKeyUsage=${usage}`, 'keyUsage=critical,digitalSignature,keyEncipherment'];
    if (sans) ext.push(`subjectAltName=${sans}`);
    writeFileSync(p(`${name}.ext`), ext.join('\n') + '\n');
    await sh('openssl', [
      'x509',
      '-req',
      '-in',
      p(`${name}.csr`),
      '-CA',
      p('ca.crt'),
      '-CAkey',
      p('ca.key'),
      '-CAcreateserial',
      '-days',
      '30',
      '-out',
      p(`${name}.crt`),
      '-extfile',
      p(`${name}.ext`),
    ]);
  };
  const sans = [
    'DNS:kubernetes',
    'DNS:kubernetes.default',
    'DNS:kubernetes.default.svc',
    'DNS:kubernetes.default.svc.cluster.local',
    'DNS:localhost',
    `IP:${API_SERVICE_IP}`,
    `IP:${address}`,
    'IP:127.0.0.1',
  ].join(',');
  await sign('apiserver', '/CN=kube-apiserver', 'serverAuth', sans);
  await sign('apiserver-kubelet-client', '/O=system:masters/CN=kube-apiserver-kubelet-client', 'clientAuth');
  const clients: Array<[string, string]> = [
    ['admin', '/O=system:masters/CN=oasis-admin'],
    ['kube-controller-manager', '/CN=system:kube-controller-manager'],
    ['kube-scheduler', '/CN=system:kube-scheduler'],
    ['kubelet', `/O=system:nodes/CN=system:node:${NODE_NAME}`],
    ['kube-proxy', '/CN=system:kube-proxy'],
    ['kube-router', '/CN=oasis:kube-router'],
  ];
  for (const [name, subject] of clients) {
    await sign(name, subject, 'clientAuth');
    writeFileSync(kubeconfigOf(name), kubeconfig(name, address));
  }
}

const kubeconfigOf = (name: string) => path.join(STATE, `${name}.kubeconfig`);

function kubeconfig(name: string, address: string) {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `  - name: ${NODE_NAME}`,
    '    cluster:',
    `      server: https://${address}:${API_PORT}`,
    `      certificate-authority: ${path.join(PKI, 'ca.crt')}`,
    'users:',
    `  - name: ${name}`,
    '    user:',
    `      client-certificate: ${path.join(PKI, `${name}.crt`)}`,
    `      client-key: ${path.join(PKI, `${name}.key`)}`,
    'contexts:',
    `  - name: ${NODE_NAME}`,
    `    context: { cluster: ${NODE_NAME}, user: ${name} }`,
    `current-context: ${NODE_NAME}`,
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Configuration files

function writeConfigs(address: string) {
  const cni = path.join(STATE, 'cni');
  mkdirSync(path.join(cni, 'net.d'), { recursive: true });
  // No ipMasq and no portmap: the pods talk only to this machine, and no iptables rule of the CNI
  // is left to clean up.
  writeFileSync(
    path.join(cni, 'net.d', '10-oasis.conflist'),
    JSON.stringify({
      cniVersion: '1.0.0',
      name: 'oasis-k8s',
      plugins: [
        {
          type: 'bridge',
          bridge: BRIDGE,
          isGateway: true,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: POD_CIDR }]],
            routes: [{ dst: '0.0.0.0/0' }],
            dataDir: path.join(cni, 'ipam'),
          },
        },
      ],
    }),
  );
  mkdirSync(path.dirname(CONTAINERD_SOCK), { recursive: true });
  // restrict_oom_score_adj: containerd 1.6 with this runc otherwise fails every sandbox with
  // "can't get final child's PID from pipe" (runc may not lower the OOM score it inherits).
  writeFileSync(
    path.join(STATE, 'containerd', 'config.toml'),
    `version = 2
root = "${path.join(STATE, 'containerd', 'root')}"
state = "${path.join(STATE, 'containerd', 'state')}"
[grpc]
  address = "${CONTAINERD_SOCK}"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${images.pause}"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${path.join(cni, 'net.d')}"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
`,
  );
  // cgroup v1 without systemd on this host: the cgroupfs driver, and cgroup v1 allowed.
  writeFileSync(
    path.join(STATE, 'kubelet.yaml'),
    JSON.stringify({
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      cgroupDriver: 'cgroupfs',
      failCgroupV1: false,
      failSwapOn: false,
      containerRuntimeEndpoint: `unix://${CONTAINERD_SOCK}`,
      authentication: {
        anonymous: { enabled: false },
        webhook: { enabled: true },
        x509: { clientCAFile: path.join(PKI, 'ca.crt') },
      },
      authorization: { mode: 'Webhook' },
      clusterDNS: [DNS_IP],
      clusterDomain: 'cluster.local',
      // The host's resolver is outside this machine: pods resolve cluster names only.
      resolvConf: '',
      // The API server reaches the kubelet (logs, exec, port-forward) on the node's address.
      address,
      healthzBindAddress: '127.0.0.1',
      podLogsDir: POD_LOGS,
      readOnlyPort: 0,
      serializeImagePulls: false,
      imageGCHighThresholdPercent: 100,
      evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '1%', 'imagefs.available': '1%' },
    }),
  );
  writeFileSync(
    path.join(STATE, 'kube-proxy.yaml'),
    JSON.stringify({
      apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
      kind: 'KubeProxyConfiguration',
      clientConnection: { kubeconfig: kubeconfigOf('kube-proxy') },
      hostnameOverride: NODE_NAME,
      mode: 'iptables',
      clusterCIDR: POD_CIDR,
      // Node ports only on loopback; no conntrack table resizing.
      nodePortAddresses: ['127.0.0.0/8'],
      conntrack: { maxPerCore: 0 },
      metricsBindAddress: '127.0.0.1:10249',
      healthzBindAddress: '127.0.0.1:10256',
    }),
  );
}

function argsOf(name: Component, address: string): string[] {
  const p = (file: string) => path.join(PKI, file);
  switch (name) {
    case 'etcd':
      return [
        '--name=oasis',
        `--data-dir=${path.join(STATE, 'etcd')}`,
        `--listen-client-urls=http://127.0.0.1:${ETCD_PORT}`,
        `--advertise-client-urls=http://127.0.0.1:${ETCD_PORT}`,
        `--listen-peer-urls=http://127.0.0.1:${ETCD_PEER_PORT}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${ETCD_PEER_PORT}`,
        `--initial-cluster=oasis=http://127.0.0.1:${ETCD_PEER_PORT}`,
        '--listen-metrics-urls=',
      ];
    case 'kube-apiserver':
      return [
        `--etcd-servers=http://127.0.0.1:${ETCD_PORT}`,
        `--bind-address=${address}`,
        `--advertise-address=${address}`,
        `--secure-port=${API_PORT}`,
        `--service-cluster-ip-range=${SERVICE_CIDR}`,
        `--client-ca-file=${p('ca.crt')}`,
        `--tls-cert-file=${p('apiserver.crt')}`,
        `--tls-private-key-file=${p('apiserver.key')}`,
        `--kubelet-client-certificate=${p('apiserver-kubelet-client.crt')}`,
        `--kubelet-client-key=${p('apiserver-kubelet-client.key')}`,
        `--service-account-key-file=${p('sa.pub')}`,
        `--service-account-signing-key-file=${p('sa.key')}`,
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        '--authorization-mode=Node,RBAC',
        '--enable-admission-plugins=NodeRestriction',
        '--allow-privileged=true',
        '--kubelet-preferred-address-types=InternalIP,Hostname',
        '--profiling=false',
      ];
    case 'kube-controller-manager':
      return [
        `--kubeconfig=${kubeconfigOf(name)}`,
        `--authentication-kubeconfig=${kubeconfigOf(name)}`,
        `--authorization-kubeconfig=${kubeconfigOf(name)}`,
        '--bind-address=127.0.0.1',
        `--cluster-signing-cert-file=${p('ca.crt')}`,
        `--cluster-signing-key-file=${p('ca.key')}`,
        `--root-ca-file=${p('ca.crt')}`,
        `--service-account-private-key-file=${p('sa.key')}`,
        '--use-service-account-credentials=true',
        `--service-cluster-ip-range=${SERVICE_CIDR}`,
        '--leader-elect=false',
        '--profiling=false',
      ];
    case 'kube-scheduler':
      return [
        `--kubeconfig=${kubeconfigOf(name)}`,
        `--authentication-kubeconfig=${kubeconfigOf(name)}`,
        `--authorization-kubeconfig=${kubeconfigOf(name)}`,
        '--bind-address=127.0.0.1',
        '--leader-elect=false',
        '--profiling=false',
      ];
    case 'containerd':
      return ['--config', path.join(STATE, 'containerd', 'config.toml')];
    case 'kubelet':
      return [
        `--kubeconfig=${kubeconfigOf(name)}`,
        `--config=${path.join(STATE, 'kubelet.yaml')}`,
        `--root-dir=${path.join(STATE, 'kubelet')}`,
        `--hostname-override=${NODE_NAME}`,
        `--node-ip=${address}`,
      ];
    case 'kube-proxy':
      return [`--config=${path.join(STATE, 'kube-proxy.yaml')}`];
    case 'kube-router':
      // The firewall only: kube-proxy routes Services, the bridge plugin connects pods.
      return [
        `--kubeconfig=${kubeconfigOf(name)}`,
        `--hostname-override=${NODE_NAME}`,
        '--run-firewall=true',
        '--run-router=false',
        '--run-service-proxy=false',
        '--enable-cni=false',
        `--service-cluster-ip-range=${SERVICE_CIDR}`,
        '--health-port=0',
      ];
  }
}

/** Starts a component detached (it outlives this script), logging to .run/k8s/logs/<name>.log. */
async function start(name: Component, address: string) {
  mkdirSync(LOGS, { recursive: true });
  const fd = openSync(path.join(LOGS, `${name}.log`), 'a');
  const child = spawn(executableOf(name), argsOf(name, address), {
    detached: true,
    stdio: ['ignore', fd, fd],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  child.unref();
  writeFileSync(PIDS_FILE, JSON.stringify({ ...pids(), [name]: child.pid }, null, 2) + '\n');
  return child.pid as number;
}

const alive = (name: Component) => {
  const pid = pids()[name];
  return pid !== undefined && isRunning(pid, executableOf(name));
};

async function httpOk(url: string) {
  const response = await fetch(url).catch(() => undefined);
  return response?.ok ?? false;
}

// ---------------------------------------------------------------------------------------------
// Images

/** Builds the cluster's own images (pause, CoreDNS, NATS with a shell for the chart's init container). */
async function clusterImages() {
  const context = path.join(STATE, 'image-context');
  const build = async (image: string, files: Record<string, string>, containerfile: string) => {
    rmSync(context, { recursive: true, force: true });
    mkdirSync(context, { recursive: true });
    for (const [name, from] of Object.entries(files))
      writeFileSync(path.join(context, name), readFileSync(from), { mode: 0o755 });
    writeFileSync(path.join(context, 'Containerfile'), containerfile);
    await sh('podman', ['build', '-q', '-t', image, context]);
  };
  await build(
    images.pause,
    { pause: bin('k8s-pause') },
    'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n',
  );
  await build(
    images.coredns,
    { coredns: bin('coredns') },
    'FROM scratch\nCOPY coredns /coredns\nENTRYPOINT ["/coredns"]\n',
  );
  // The chart's NATS runs `sh` (its password init container, with sed and wc) and `nats-server`:
  // busybox from the base images' Debian root file system gives the shell and the tools.
  const busybox = path.join(ROOT, '.tools', 'images', 'rootfs-bookworm', 'bin', 'busybox');
  if (!existsSync(busybox)) throw new StepError(`${busybox} is missing: run npm run images first`);
  await build(
    images.nats,
    { busybox, 'nats-server': bin('nats-server') },
    'FROM scratch\nCOPY busybox /bin/busybox\nRUN ["/bin/busybox", "--install", "-s", "/bin"]\n' +
      'COPY nats-server /usr/local/bin/nats-server\nENV PATH=/usr/local/bin:/bin\n',
  );
  rmSync(context, { recursive: true, force: true });
}

/** `podman save | ctr import` for every image the cluster runs. */
async function loadImages() {
  const all = [...Object.values(images), ...APP_IMAGES];
  const present = await sh('podman', ['images', '--format', '{{.Repository}}:{{.Tag}}']);
  const missing = all.filter((image) => !present.split('\n').includes(image));
  if (missing.length)
    throw new StepError(`missing images: ${missing.join(', ')} (npm run images builds them)`);
  // One archive for all: their layers are saved and unpacked once (0.65 GB against 1.6 GB one by
  // one, since every service image shares the Node.js base), in about half the time.
  const result = spawnSync(
    'bash',
    [
      '-c',
      'set -o pipefail; sock="$1"; shift; podman save -m --format docker-archive "$@" | ctr --address "$sock" -n k8s.io images import -',
      'load',
      CONTAINERD_SOCK,
      ...all,
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new StepError('loading the images into containerd failed', result.stderr);
  return `${all.length} images`;
}

// ---------------------------------------------------------------------------------------------
// up

/** Starts the cluster and installs the chart; `values` are further values files for helm install. */
export async function up({ values = [] as string[] } = {}) {
  if (process.getuid?.() !== 0)
    throw new StepError('the cluster runs as root (kubelet, containerd, iptables)');
  const running = COMPONENTS.filter(alive);
  if (running.length)
    throw new StepError(`already running: ${running.join(', ')} (npm run stack:k8s -- down)`);
  const t0 = Date.now();
  await step('host packages (containerd, runc, CNI plugins)', hostPackages);
  await step('binaries (.tools/bin)', async () => {
    await buildKubernetes();
    await buildEtcd();
    await buildCoreDns();
    await buildKubeRouter();
    await buildPause();
  });
  await kernelSettings();
  // A stopped cluster's leftovers (a down that did not finish) first.
  await cleanUp();
  const address = hostAddress();
  const tCluster = Date.now();
  mkdirSync(VOLUMES, { recursive: true });
  await step('certificates', () => certificates(address));
  writeFileSync(ADMIN_KUBECONFIG, kubeconfig('admin', address));
  writeConfigs(address);

  await step('etcd', async () => {
    await start('etcd', address);
    await waitFor('etcd', () => httpOk(`http://127.0.0.1:${ETCD_PORT}/health`));
  });
  await step('kube-apiserver', async () => {
    await start('kube-apiserver', address);
    await waitFor('kube-apiserver', async () => (await kubectl('get', '--raw', '/readyz')).trim() === 'ok');
  });
  await step('controller manager, scheduler, containerd', async () => {
    await start('kube-controller-manager', address);
    await start('kube-scheduler', address);
    await start('containerd', address);
    await waitFor(
      'containerd',
      async () => (await run('ctr', ['--address', CONTAINERD_SOCK, 'version'], { capture: true })).code === 0,
    );
  });
  await step('cluster images (pause, CoreDNS, NATS)', clusterImages);
  await step('images loaded into containerd', loadImages);
  await step('kubelet, kube-proxy: node Ready', async () => {
    await start('kubelet', address);
    await start('kube-proxy', address);
    await waitFor('the node to be Ready', async () => {
      const status = await kubectl(
        'get',
        'node',
        NODE_NAME,
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
      );
      return status.trim() === 'True';
    });
  });
  await step('CoreDNS and the hostPath provisioner', async () => {
    const addons = readFileSync(path.join(HERE, 'manifests', 'cluster-addons.yaml'), 'utf8')
      .replaceAll('@@COREDNS_IMAGE@@', images.coredns)
      .replaceAll('@@NODE_IMAGE@@', images.node)
      .replaceAll('@@DNS_IP@@', DNS_IP)
      .replaceAll('@@VOLUMES_DIR@@', VOLUMES);
    writeFileSync(path.join(STATE, 'cluster-addons.yaml'), addons);
    // The namespace first: the ConfigMap below goes into it.
    await kubectl('apply', '-f', path.join(STATE, 'cluster-addons.yaml'));
    await kubectl(
      'create',
      'configmap',
      'hostpath-provisioner',
      '-n',
      'oasis-storage',
      `--from-file=${path.join(HERE, 'provisioner', 'provisioner.mjs')}`,
    );
    await kubectl('-n', 'kube-system', 'rollout', 'status', 'deploy/coredns', '--timeout=180s');
    await kubectl(
      '-n',
      'oasis-storage',
      'rollout',
      'status',
      'deploy/hostpath-provisioner',
      '--timeout=180s',
    );
  });
  // Before any release pod: every NetworkPolicy holds from its pods' first packet.
  await step('kube-router: NetworkPolicies enforced', async () => {
    await start('kube-router', address);
    await waitFor("kube-router's firewall chains", () =>
      /^:KUBE-ROUTER-FORWARD /m.test(spawnSync('iptables-save', { encoding: 'utf8' }).stdout ?? ''),
    );
  });
  const clusterReady = Date.now() - tCluster;
  console.log(bold(`cluster ready with DNS in ${formatDuration(clusterReady)}`));

  const tApp = Date.now();
  await step('helm install oasis198 (and FerretDB)', () => install(values));
  await step('every rollout', async () => {
    for (const kind of ['statefulset', 'deployment']) {
      const names = (await kubectl('-n', NAMESPACE, 'get', kind, '-o', 'name')).split('\n').filter(Boolean);
      for (const name of names) await kubectl('-n', NAMESPACE, 'rollout', 'status', name, '--timeout=300s');
    }
  });
  console.log(
    bold(
      `all pods ready ${formatDuration(Date.now() - tApp)} after the cluster (${formatDuration(Date.now() - t0)} in all)`,
    ),
  );
  console.log(await kubectl('get', 'pods', '-A', '-o', 'wide'));
  const webIp = (
    await kubectl('-n', NAMESPACE, 'get', 'svc', 'oasis198-web', '-o', 'jsonpath={.spec.clusterIP}')
  ).trim();
  const kubectlHere = `${path.relative(ROOT, bin('kubectl'))} --kubeconfig ${path.relative(ROOT, ADMIN_KUBECONFIG)}`;
  console.log(`The web app:
  from this machine        http://${webIp}:8080  (its Service's cluster IP, routed by kube-proxy)
  or on a local port       ${kubectlHere} -n ${NAMESPACE} port-forward svc/oasis198-web 8080:8080
                           then http://127.0.0.1:8080
kubectl:                   ${kubectlHere} get pods -A
Stop and clean up:         npm run stack:k8s -- down`);
}

/** FerretDB, then the umbrella chart with a fresh JWT key pair and NATS passwords. */
async function install(values: string[]) {
  const secrets = path.join(STATE, 'secrets');
  mkdirSync(secrets, { recursive: true, mode: 0o700 });
  const key = path.join(secrets, 'jwt-key.pem');
  const publicKey = path.join(secrets, 'jwt-public-key.pem');
  await sh('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key]);
  await sh('openssl', ['pkey', '-in', key, '-pubout', '-out', publicKey]);
  const args = [`--set-file=auth.jwt.value=${key}`, `--set-file=auth.jwt.publicKey=${publicKey}`];
  // The passwords go in a file, not on helm's command line (which every user of the machine sees).
  const passwords = path.join(secrets, 'nats-passwords.json');
  const generated = Object.fromEntries(
    ['gateway', 'auth', 'rewards', 'rooms', 'game-timer', 'tournaments'].map((service) => [
      service,
      { nats: { password: randomBytes(32).toString('hex') } },
    ]),
  );
  writeFileSync(passwords, JSON.stringify(generated), { mode: 0o600 });
  args.push('-f', passwords);
  await kubectl('create', 'namespace', NAMESPACE);
  // Pod Security Admission refuses any pod of the release that is not `restricted`.
  await kubectl(
    'label',
    'namespace',
    NAMESPACE,
    'pod-security.kubernetes.io/enforce=restricted',
    'pod-security.kubernetes.io/enforce-version=latest',
    'pod-security.kubernetes.io/warn=restricted',
  );
  const ferretdb = readFileSync(path.join(HERE, 'manifests', 'ferretdb.yaml'), 'utf8').replaceAll(
    '@@FERRETDB_IMAGE@@',
    images.ferretdb,
  );
  writeFileSync(path.join(STATE, 'ferretdb.yaml'), ferretdb);
  await kubectl('-n', NAMESPACE, 'apply', '-f', path.join(STATE, 'ferretdb.yaml'));
  for (const chart of [
    'gateway',
    'auth',
    'rewards',
    'rooms',
    'game-timer',
    'tournaments',
    'web',
    'oasis198',
  ]) {
    await sh(HELM_BIN, ['dependency', 'build', path.join(ROOT, 'helm', chart)]);
  }
  await sh(
    HELM_BIN,
    [
      'install',
      'oasis198',
      path.join(ROOT, 'helm', 'oasis198'),
      '-n',
      NAMESPACE,
      '-f',
      path.join(HERE, 'values.yaml'),
      ...args,
      ...values.flatMap((file) => ['-f', file]),
      '--wait',
      '--timeout=10m',
    ],
    { env: { KUBECONFIG: ADMIN_KUBECONFIG } },
  );
}

// ---------------------------------------------------------------------------------------------
// down

/** Stops the cluster and removes what it left; throws naming what is still there. */
export async function down() {
  const t0 = Date.now();
  // The kubelet first, so it restarts nothing; then every container, through containerd.
  await stop('kubelet');
  if (alive('containerd')) await removeContainers();
  for (const name of [...COMPONENTS].reverse()) await stop(name);
  await cleanUp();
  const left = leftovers();
  if (left.length) throw new StepError(`the cluster left behind:\n  ${left.join('\n  ')}`);
  console.log(
    bold(
      `down in ${formatDuration(Date.now() - t0)}: no process, mount, network namespace, cgroup, KUBE-* rule or ipset left`,
    ),
  );
}

/** What of a cluster is still on this machine: processes, mounts, network namespaces, cgroups, iptables chains. */
export function leftovers(): string[] {
  const found: string[] = [];
  const ours = [...COMPONENTS.map(executableOf), 'containerd-shim'];
  for (const entry of readdirSync('/proc')) {
    const cmdline = /^\d+$/.test(entry) ? readIfExists(`/proc/${entry}/cmdline`) : undefined;
    const argv0 = cmdline?.split('\0')[0] ?? '';
    // The cluster's processes: its components, and every process that names its state directory.
    if (
      (ours.some((name) => argv0.endsWith(name)) && cmdline?.includes(STATE)) ||
      cmdline?.includes(CONTAINERD_SOCK)
    )
      found.push(`process ${entry}: ${cmdline?.replaceAll('\0', ' ').slice(0, 120)}`);
  }
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const point = line.split(' ')[4] ?? '';
    if (point.startsWith(STATE + '/') || point.includes('/io.containerd.runtime.v2.task/k8s.io/'))
      found.push(`mount ${point}`);
  }
  const prefix = POD_CIDR.split('.').slice(0, 3).join('.') + '.';
  for (const ns of spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout.split('\n')) {
    const name = ns.split(' ')[0];
    if (!name?.startsWith('cni-')) continue;
    const addresses = spawnSync('ip', ['netns', 'exec', name, 'ip', '-4', '-o', 'addr'], {
      encoding: 'utf8',
    }).stdout;
    if (addresses.includes(` ${prefix}`)) found.push(`network namespace ${name}`);
  }
  if (spawnSync('ip', ['link', 'show', BRIDGE]).status === 0) found.push(`bridge ${BRIDGE}`);
  for (const controller of existsSync('/sys/fs/cgroup') ? readdirSync('/sys/fs/cgroup') : []) {
    if (existsSync(path.join('/sys/fs/cgroup', controller, 'kubepods')))
      found.push(`cgroup ${controller}/kubepods`);
  }
  for (const tool of ['iptables', 'ip6tables']) {
    const saved = spawnSync(`${tool}-save`, { encoding: 'utf8' }).stdout ?? '';
    const kube = saved.split('\n').filter((line) => /^:KUBE-|-j KUBE-/.test(line));
    if (kube.length) found.push(`${tool}: ${kube.length} KUBE-* chains and rules, e.g. ${kube[0]}`);
  }
  const sets = kubeRouterSets();
  if (sets.length) found.push(`${sets.length} ipsets of kube-router, e.g. ${sets[0]}`);
  if (existsSync(STATE)) found.push(`directory ${path.relative(ROOT, STATE)}`);
  return found;
}

async function stop(name: Component) {
  const pid = pids()[name];
  if (pid === undefined || !isRunning(pid, executableOf(name))) return;
  // kube-apiserver can hang on SIGTERM: 10 s, then SIGKILL.
  const killed = await stopProcess(pid, { timeoutMs: 10_000 });
  console.log(`${green('✓')} stopped ${name}${killed ? ' (killed)' : ''}`);
}

async function removeContainers() {
  const ctr = (...args: string[]) =>
    run('ctr', ['--address', CONTAINERD_SOCK, '-n', 'k8s.io', ...args], { capture: true });
  const tasks = (await ctr('tasks', 'ls', '-q')).stdout.split('\n').filter(Boolean);
  const started = Date.now();
  // --force kills a running task first; those of exited containers are deleted as they are.
  await Promise.all(tasks.map((id) => ctr('tasks', 'delete', '--force', id)));
  const containers = (await ctr('containers', 'ls', '-q')).stdout.split('\n').filter(Boolean);
  for (const id of containers) await ctr('containers', 'delete', id);
  console.log(
    `${green('✓')} removed ${containers.length} containers ${dim(formatDuration(Date.now() - started))}`,
  );
}

/**
 * What a stopped node leaves behind: containerd shims, mounts (kubelet's volumes, the sandboxes'
 * network namespaces, containers' root file systems), the pods' network namespaces and bridge,
 * kubelet's cgroups, and the KUBE-* iptables chains of kubelet and kube-proxy.
 */
async function cleanUp() {
  // Shims of this containerd (found by its socket on their command line).
  for (const entry of readdirSync('/proc')) {
    const cmdline = /^\d+$/.test(entry) ? readIfExists(`/proc/${entry}/cmdline`) : undefined;
    if (cmdline?.includes('containerd-shim') && cmdline.includes(CONTAINERD_SOCK)) {
      await stopProcess(Number(entry), { timeoutMs: 2000 });
    }
  }
  // The pods' network namespaces: those with an address of the pod range.
  const prefix = POD_CIDR.split('.').slice(0, 3).join('.') + '.';
  for (const ns of spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout.split('\n')) {
    const name = ns.split(' ')[0];
    if (!name?.startsWith('cni-')) continue;
    const addresses = spawnSync('ip', ['netns', 'exec', name, 'ip', '-4', '-o', 'addr'], {
      encoding: 'utf8',
    }).stdout;
    if (addresses.includes(` ${prefix}`)) spawnSync('ip', ['netns', 'delete', name]);
  }
  // Mounts under the state directory and the containers' root file systems, deepest first.
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter(
      (point) => point.startsWith(STATE + '/') || point.includes('/io.containerd.runtime.v2.task/k8s.io/'),
    )
    .sort((a, b) => b.length - a.length);
  for (const point of mounts) spawnSync('umount', ['-l', point]);
  if (spawnSync('ip', ['link', 'show', BRIDGE]).status === 0) spawnSync('ip', ['link', 'delete', BRIDGE]);
  // kubelet's cgroups (cgroupfs driver): every controller's kubepods tree, leaves first.
  for (const controller of existsSync('/sys/fs/cgroup') ? readdirSync('/sys/fs/cgroup') : []) {
    removeCgroupTree(path.join('/sys/fs/cgroup', controller, 'kubepods'));
  }
  for (const tool of ['iptables', 'ip6tables']) removeKubeChains(tool);
  // Once no rule refers to them.
  for (const set of kubeRouterSets()) spawnSync('ipset', ['destroy', set]);
  for (const link of existsSync(CONTAINER_LOG_LINKS) ? readdirSync(CONTAINER_LOG_LINKS) : []) {
    const file = path.join(CONTAINER_LOG_LINKS, link);
    if (readlinkOrEmpty(file).startsWith(POD_LOGS + '/')) rmSync(file, { force: true });
  }
  rmSync(STATE, { recursive: true, force: true });
}

function readlinkOrEmpty(file: string) {
  try {
    return readlinkSync(file);
  } catch {
    return '';
  }
}

function removeCgroupTree(dir: string) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) removeCgroupTree(path.join(dir, entry.name));
  }
  try {
    rmdirSync(dir);
  } catch {
    // still holds a process, reported by the check below
  }
}

/** kube-router's ipsets (KUBE-SRC-…, KUBE-DST-…, kube-router-…, and their inet6: twins). */
function kubeRouterSets(): string[] {
  const listed = spawnSync('ipset', ['list', '-n'], { encoding: 'utf8' }).stdout ?? '';
  return listed.split('\n').filter((name) => /^(inet6:)?(KUBE-|kube-router-)/.test(name));
}

/** Deletes every rule that jumps to a KUBE-* chain, then the chains, in each table. */
function removeKubeChains(tool: string) {
  const saved = spawnSync(`${tool}-save`, { encoding: 'utf8' }).stdout ?? '';
  let table = '';
  const chains: Array<[string, string]> = [];
  const rules: Array<[string, string]> = [];
  for (const line of saved.split('\n')) {
    if (line.startsWith('*')) table = line.slice(1);
    else if (line.startsWith(':KUBE-')) chains.push([table, line.slice(1).split(' ')[0] as string]);
    else if (line.startsWith('-A ') && / -j KUBE-/.test(line) && !/^-A KUBE-/.test(line))
      rules.push([table, line]);
  }
  for (const [t, rule] of rules) {
    spawnSync('sh', ['-c', `${tool} -w -t ${t} -D ${rule.slice(3)}`]);
  }
  for (const [t, chain] of chains) spawnSync(tool, ['-w', '-t', t, '-F', chain]);
  for (const [t, chain] of chains) spawnSync(tool, ['-w', '-t', t, '-X', chain]);
}

// ---------------------------------------------------------------------------------------------

async function status() {
  for (const name of COMPONENTS) console.log(`${alive(name) ? green('running') : dim('stopped')} ${name}`);
  if (alive('kube-apiserver')) console.log(await kubectl('get', 'pods', '-A'));
}

if (import.meta.main) {
  const [command = 'up', ...rest] = process.argv.slice(2);
  const values = rest.filter((_, i) => rest[i - 1] === '-f');
  const commands: Record<string, () => Promise<void>> = { up: () => up({ values }), down, status };
  if (!commands[command]) {
    console.error(
      red(`unknown command ${command}: node tools/k8s/stack.ts [up [-f values.yaml] | down | status]`),
    );
    process.exit(2);
  }
  try {
    await commands[command]();
  } catch (error) {
    console.error(red(`✗ ${(error as Error).message}`));
    if (command === 'up') console.error('npm run stack:k8s -- down stops what was started');
    if (error instanceof StepError && error.output) console.error(error.output.slice(-4000));
    process.exit(1);
  }
}
