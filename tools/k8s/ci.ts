// The Kubernetes stage of `npm test`: the one-node cluster of tools/k8s/stack.ts with the umbrella
// chart (two replicas of every service) in a namespace where Pod Security Admission enforces
// `restricted`, then, through the cluster's Services:
//   1. every pod ready, and a privileged pod refused by the namespace;
//   2. the browser scenarios that cross services (SYSTEM_SCENARIOS) through the web Service;
//   3. `kubectl rollout restart` of every deployment, one after the other, while 20 games play:
//      no failed request at all (no 5xx, no request without an answer), every move kept;
//   4. faults the Kubernetes way while 20 games play: `kubectl delete pod` of one replica of each
//      service, of NATS and of the database, and a SIGKILL of a rooms container's process: nothing
//      lost, no 500;
//   5. each service's NATS user refused outside its permissions by the in-cluster NATS;
//   6. the NetworkPolicies enforced (kube-router's firewall): a pod outside the release cannot
//      reach NATS, the same pod labelled as part of it can;
// and `-- down` afterwards, which fails if the cluster left a process, mount, network namespace,
// cgroup, iptables rule or ipset behind. Logs of every pod go to .artifacts/k8s/.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type NatsConnection } from 'nats';
import { type Disruption, gamesDuring } from '../containers/src/disrupted-games.ts';
import { buildImages } from '../containers/src/images.ts';
import { bold, dim, formatDuration, green, parseOptions, red } from '../scripts/lib/log.ts';
import { run } from '../scripts/lib/proc.ts';
import { runSystemScenarios, SHARED_ADDRESS_LIMITS } from '../scripts/lib/stack.ts';
import { ROOT } from '../scripts/lib/workspace.ts';
import { bin } from './build.ts';
import { ADMIN_KUBECONFIG, CONTAINERD_SOCK, down, images, kubectl, NAMESPACE, STATE, up } from './stack.ts';

const ARTIFACTS = path.join(ROOT, '.artifacts', 'k8s');
const SERVICES = ['gateway', 'auth', 'rewards', 'rooms', 'game-timer', 'tournaments'] as const;
const DEPLOYMENTS = [...SERVICES, 'web'].map((name) => `oasis198-${name}`);
const REPLICAS = 2;

type Pod = {
  metadata: { name: string; uid: string; deletionTimestamp?: string; labels?: Record<string, string> };
  status: {
    phase?: string;
    conditions?: Array<{ type: string; status: string }>;
    containerStatuses?: Array<{ name: string; containerID?: string; restartCount: number; ready: boolean }>;
  };
};

const timings: Array<[string, number]> = [];
async function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  console.log(bold(`\n▸ ${name}`));
  const t0 = Date.now();
  const result = await work();
  timings.push([name, Date.now() - t0]);
  console.log(`${green('✓')} ${name} ${dim(formatDuration(Date.now() - t0))}`);
  return result;
}

/** Polls until `check` answers true; throws naming `what` after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 180_000) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(500)) {
    if (await check().catch(() => false)) return;
  }
  throw new Error(`timed out waiting for ${what}`);
}

const json = async <T>(...args: string[]): Promise<T> => JSON.parse(await kubectl(...args, '-o', 'json'));
const pods = async (selector?: string) =>
  (await json<{ items: Pod[] }>('-n', NAMESPACE, 'get', 'pods', ...(selector ? ['-l', selector] : []))).items;
const isReady = (pod: Pod) =>
  !pod.metadata.deletionTimestamp &&
  pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
const clusterIp = async (service: string) =>
  (await kubectl('-n', NAMESPACE, 'get', 'svc', service, '-o', 'jsonpath={.spec.clusterIP}')).trim();

/** Every pod of the release and the database ready, and no more pods than their controllers want (none terminating). */
async function everythingReady(): Promise<boolean> {
  type Controllers = { items: Array<{ spec: { replicas?: number } }> };
  const wanted = (await json<Controllers>('-n', NAMESPACE, 'get', 'deployments,statefulsets')).items.reduce(
    (sum, item) => sum + (item.spec.replicas ?? 1),
    0,
  );
  const all = await pods();
  return all.length === wanted && all.every(isReady);
}

/** The values the stage installs with: every service twice, the gateway's per-address limits raised (one client address). */
function ciValues(): string {
  const replicas = { autoscaling: { enabled: false }, replicaCount: REPLICAS };
  const values = {
    gateway: { ...replicas, config: SHARED_ADDRESS_LIMITS },
    ...Object.fromEntries(
      ['auth', 'rewards', 'rooms', 'game-timer', 'tournaments', 'web'].map((name) => [name, replicas]),
    ),
  };
  const file = path.join(ARTIFACTS, 'ci-values.json');
  writeFileSync(file, JSON.stringify(values, null, 2) + '\n');
  return file;
}

async function podSecurity() {
  const labels = JSON.parse(
    await kubectl('get', 'namespace', NAMESPACE, '-o', 'jsonpath={.metadata.labels}'),
  ) as Record<string, string>;
  if (labels['pod-security.kubernetes.io/enforce'] !== 'restricted')
    throw new Error(`namespace ${NAMESPACE} does not enforce restricted: ${JSON.stringify(labels)}`);
  const notReady = (await pods()).filter((pod) => !isReady(pod)).map((pod) => pod.metadata.name);
  if (notReady.length) throw new Error(`pods not ready: ${notReady.join(', ')}`);
  // A pod that breaks the profile (privileged, root) must be refused by the API server itself.
  const refused = await run(
    'sh',
    [
      '-c',
      '"$0" --kubeconfig "$1" -n "$2" run psa-probe --image=localhost/oasis198/pause:local ' +
        '--image-pull-policy=Never --restart=Never --privileged --dry-run=server',
      ...(await kubectlArgv()),
      NAMESPACE,
    ],
    { capture: true },
  );
  if (refused.code === 0 || !/violates PodSecurity "restricted/.test(refused.output))
    throw new Error(`a privileged pod was not refused by Pod Security Admission:\n${refused.output}`);
  console.log(
    `  ${(await pods()).length} pods ready; a privileged pod: ${refused.output.trim().split('\n')[0]?.slice(0, 160)}`,
  );
}

const kubectlArgv = async () => [bin('kubectl'), ADMIN_KUBECONFIG];

async function scenarios() {
  await runSystemScenarios(`http://${await clusterIp('oasis198-web')}:8080`, 'k8s');
}

/**
 * Follows the logs of every pod that runs now into .artifacts/k8s/<name>-logs/: a pod a rollout or
 * a fault replaces takes its logs with it, and they are what explains an answer players saw.
 */
async function followLogs(name: string): Promise<() => void> {
  const dir = path.join(ARTIFACTS, `${name}-logs`);
  mkdirSync(dir, { recursive: true });
  const followers = (await pods()).map((pod) => {
    const child = spawn(
      bin('kubectl'),
      [
        '--kubeconfig',
        ADMIN_KUBECONFIG,
        '-n',
        NAMESPACE,
        'logs',
        '-f',
        '--all-containers',
        pod.metadata.name,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    child.stdout.pipe(createWriteStream(path.join(dir, `${pod.metadata.name}.log`)));
    return child;
  });
  return () => followers.forEach((child) => child.kill());
}

/**
 * Games while the disruptions run. Player 1 of each game plays through the gateway's Service,
 * player 2 through the web Service's nginx (a browser's path without an ingress), so both Services
 * and every replica behind them carry moves and pushes. A stopping pod closes its idle kept-alive
 * connections: a request sent on one at that instant is sent again, as browsers do (docs/adr/0026).
 */
async function games(name: string, disruptions: Disruption[], sleepers: boolean) {
  const stopFollowing = await followLogs(name);
  const urls: [string, string] = [
    `http://${await clusterIp('oasis198-gateway')}:8080`,
    `http://${await clusterIp('oasis198-web')}:8080`,
  ];
  const report = await gamesDuring({ urls, retryResetReusedSocket: true, disruptions, sleepers }).finally(
    stopFollowing,
  );
  writeFileSync(path.join(ARTIFACTS, `${name}.json`), JSON.stringify(report, null, 2) + '\n');
  if (report.problems.length)
    throw new Error(`${name}: ${report.problems.length} problems (.artifacts/k8s/${name}.json)`);
}

async function rolloutRestarts() {
  const chosen = DEPLOYMENTS.filter((name) => rollouts.has(name.replace(/^oasis198-/, '')));
  // Every deployment at once: the PDBs, preStop hooks and readiness must hide all of it together.
  const restartAll: Disruption = {
    name: `rollout restart of ${chosen.length} deployments`,
    at: 20_000,
    outage: false,
    run: async () => {
      await kubectl('-n', NAMESPACE, 'rollout', 'restart', ...chosen.map((d) => `deployment/${d}`));
      for (const deployment of chosen)
        await kubectl('-n', NAMESPACE, 'rollout', 'status', `deployment/${deployment}`, '--timeout=300s');
      // The old pods finish their preStop and shutdown too.
      await until('the old pods to be gone', everythingReady);
      return { note: `replaced ${chosen.length * REPLICAS} pods` };
    },
  };
  await games('rollout-restart', [restartAll], false);
}

/** `kubectl delete pod` of one pod of `selector`; resolves when its replacement and everything else are ready. */
async function deletePod(selector: string): Promise<{ note: string }> {
  const [victim] = (await pods(selector)).filter(isReady);
  if (!victim) throw new Error(`no ready pod for ${selector}`);
  await kubectl('-n', NAMESPACE, 'delete', 'pod', victim.metadata.name, '--wait=false');
  const t0 = Date.now();
  await until(`a replacement of ${victim.metadata.name}`, async () => {
    const now = await pods(selector);
    return !now.some((pod) => pod.metadata.uid === victim.metadata.uid) && now.every(isReady);
  });
  const replaced = Date.now() - t0;
  await until('every pod ready', everythingReady);
  return { note: `${victim.metadata.name} deleted; replacement ready after ${formatDuration(replaced)}` };
}

/** SIGKILL to the main process of a pod's container, from the host; resolves when kubelet has restarted it and it is ready. */
async function killContainer(selector: string): Promise<{ note: string }> {
  const [victim] = (await pods(selector)).filter(isReady);
  const status = victim?.status.containerStatuses?.[0];
  const id = status?.containerID?.replace(/^containerd:\/\//, '');
  if (!victim || !status || !id) throw new Error(`no ready container for ${selector}`);
  const tasks = await run('ctr', ['--address', CONTAINERD_SOCK, '-n', 'k8s.io', 'tasks', 'ls'], {
    capture: true,
  });
  const pid = Number(
    tasks.stdout
      .split('\n')
      .find((line) => line.startsWith(id))
      ?.split(/\s+/)[1],
  );
  if (!pid) throw new Error(`no task of container ${id}`);
  process.kill(pid, 'SIGKILL');
  const t0 = Date.now();
  await until(`${victim.metadata.name} to be restarted`, async () => {
    const [now] = (await pods(selector)).filter((pod) => pod.metadata.uid === victim.metadata.uid);
    const restarted = (now?.status.containerStatuses?.[0]?.restartCount ?? 0) > status.restartCount;
    return restarted && !!now && !!isReady(now);
  });
  const back = Date.now() - t0;
  await until('every pod ready', everythingReady);
  return {
    note: `${victim.metadata.name} killed (pid ${pid}); restarted and ready after ${formatDuration(back)}`,
  };
}

async function faults() {
  const app = (name: string) => `app.kubernetes.io/instance=oasis198,app.kubernetes.io/name=${name}`;
  // Each with the window its recovery needs here (a replacement of most pods is ready in about
  // 6 s; the gateway's and web's old pods first sleep 10 s in preStop and drain), so each sleeper's
  // turn runs out during its own disruption.
  const actions: Array<[string, number, () => Promise<{ note: string }>]> = [
    ...[...SERVICES, 'web'].map((name): [string, number, () => Promise<{ note: string }>] => [
      `delete a ${name} pod`,
      name === 'gateway' || name === 'web' ? 30_000 : 16_000,
      () => deletePod(app(name)),
    ]),
    ['SIGKILL a rooms container', 16_000, () => killContainer(app('rooms'))],
    ['delete a NATS pod', 16_000, () => deletePod(app('nats'))],
    ['delete the database pod', 16_000, () => deletePod('app.kubernetes.io/instance=ferretdb')],
  ];
  // The first 40 s in: the sleepers' games have started (their players think 4-12 s before ready).
  let at = 40_000;
  const disruptions = actions.map(([name, windowMs, run]): Disruption => {
    const disruption: Disruption = { name, at, outage: true, run };
    at += windowMs;
    return disruption;
  });
  await games('faults', disruptions, true);
}

/** NATS subject matching (`*` one token, `>` the rest). */
const matches = (pattern: string, subject: string) => {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (const [i, token] of p.entries()) {
    if (token === '>') return s.length > i;
    if (token !== '*' && token !== s[i]) return false;
  }
  return p.length === s.length;
};

async function natsUsers() {
  const permissions = JSON.parse(
    readFileSync(path.join(ROOT, 'helm', 'oasis198', 'files', 'nats-permissions.json'), 'utf8'),
  ).users as Record<string, { publish: string[]; subscribe: string[] }>;
  const passwords = JSON.parse(
    readFileSync(path.join(STATE, 'secrets', 'nats-passwords.json'), 'utf8'),
  ) as Record<string, { nats: { password: string } }>;
  const servers = `nats://${await clusterIp('oasis198-nats')}:4222`;
  const candidates = [
    'user.registered',
    'rooms.create',
    'rewards.create',
    'auth.login',
    'rooms.deadline',
    'push.room.x',
  ];
  const problems: string[] = [];
  const wrong = await connect({
    servers,
    user: 'gateway',
    pass: 'not-the-password',
    reconnect: false,
    timeout: 3000,
  }).then(
    (nc) => nc.close().then(() => 'connected'),
    (error: Error) => error.message,
  );
  if (!/Authorization Violation/i.test(wrong)) problems.push(`a wrong password: ${wrong}`);
  for (const user of SERVICES) {
    const allowed = permissions[user];
    const password = passwords[user]?.nats.password;
    if (!allowed || !password) throw new Error(`no permissions or password for ${user}`);
    const publish = candidates.find((s) => !allowed.publish.some((p) => matches(p, s)));
    const subscribe = candidates.find((s) => !allowed.subscribe.some((p) => matches(p, s)));
    const nc: NatsConnection = await connect({
      servers,
      user,
      pass: password,
      reconnect: false,
      timeout: 3000,
    });
    const seen: string[] = [];
    void (async () => {
      for await (const status of nc.status()) {
        const context = (status as { permissionContext?: { operation: string; subject: string } })
          .permissionContext;
        if (context) seen.push(`${context.operation} ${context.subject}`);
      }
    })();
    if (publish) nc.publish(publish, 'refused?');
    if (subscribe) nc.subscribe(subscribe);
    await nc.flush();
    await sleep(300);
    for (const [operation, subject] of [
      ['publish', publish],
      ['subscription', subscribe],
    ] as const) {
      if (subject && !seen.includes(`${operation} ${subject}`))
        problems.push(
          `${user}: ${operation} to ${subject} was not refused (seen: ${seen.join(', ') || 'nothing'})`,
        );
    }
    console.log(`  ${user.padEnd(11)} refused: publish ${publish}, subscribe ${subscribe}`);
    await nc.close().catch(() => undefined);
  }
  console.log(`  a wrong password: ${wrong}`);
  if (problems.length) throw new Error(`NATS users:\n  ${problems.join('\n  ')}`);
}

async function saveLogs() {
  const dir = path.join(ARTIFACTS, 'logs');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const pod of await pods()) {
    const name = pod.metadata.name;
    const logs = await run(
      'sh',
      [
        '-c',
        '"$0" --kubeconfig "$1" -n "$2" logs --all-containers "$3"',
        ...(await kubectlArgv()),
        NAMESPACE,
        name,
      ],
      { capture: true },
    );
    writeFileSync(path.join(dir, `${name}.log`), logs.output);
  }
  writeFileSync(path.join(ARTIFACTS, 'pods.txt'), await kubectl('get', 'pods', '-A', '-o', 'wide'));
}

/**
 * A pod that tries a TCP connection to NATS once a second for 20 s and prints 'INFO' as soon as
 * NATS greets it (it does at once), else the last refusal. The firewall learns a new pod's address
 * from the API server a moment after it starts, so a member's first tries may be refused too.
 */
function natsProbe(name: string, natsIp: string, labels: Record<string, string>) {
  const script = `
    const net = require('net');
    let last = 'nothing';
    const deadline = Date.now() + 20000;
    const attempt = () => {
      if (Date.now() > deadline) { console.log(last); process.exit(0); }
      const s = net.connect(4222, '${natsIp}');
      const again = (why) => { last = why; s.destroy(); setTimeout(attempt, 1000); };
      s.setTimeout(1000, () => again('no answer'));
      s.once('data', (d) => { console.log(String(d).slice(0, 4)); process.exit(0); });
      s.once('error', (e) => again(e.code));
    };
    attempt();`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NAMESPACE, labels: { 'oasis198.local/probe': 'netpol', ...labels } },
    spec: {
      restartPolicy: 'Never',
      securityContext: { runAsNonRoot: true, runAsUser: 65534, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: 'probe',
          image: images.node,
          imagePullPolicy: 'Never',
          command: ['node', '-e', script],
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
        },
      ],
    },
  };
}

/** The NetworkPolicy of NATS admits the release's pods only: a stranger hears nothing, a member INFO. */
async function networkPolicies() {
  const natsIp = await clusterIp('oasis198-nats');
  const probes = [
    ['netpol-stranger', {}, false],
    ['netpol-member', { 'app.kubernetes.io/part-of': 'oasis198' }, true],
  ] as const;
  const file = path.join(STATE, 'netpol-probes.json');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: probes.map(([name, labels]) => natsProbe(name, natsIp, labels)),
    }),
  );
  await kubectl('apply', '-f', file);
  try {
    const problems: string[] = [];
    for (const [name, , admitted] of probes) {
      await until(`${name} to finish`, async () => {
        const phase = await kubectl('-n', NAMESPACE, 'get', 'pod', name, '-o', 'jsonpath={.status.phase}');
        return phase === 'Succeeded' || phase === 'Failed';
      });
      const heard = (await kubectl('-n', NAMESPACE, 'logs', name)).trim();
      console.log(`  ${name.padEnd(16)} to NATS ${natsIp}:4222: ${heard}`);
      if ((heard === 'INFO') !== admitted)
        problems.push(`${name} heard '${heard}' (${admitted ? 'admitted' : 'refused'} by the policy)`);
    }
    if (problems.length) throw new Error(`NetworkPolicy of NATS: ${problems.join('; ')}`);
  } finally {
    await kubectl('-n', NAMESPACE, 'delete', 'pod', '-l', 'oasis198.local/probe=netpol', '--wait=false');
  }
}

const USAGE = `Usage: node tools/k8s/ci.ts [--reuse] [--only psa,e2e,rollout,faults,nats,netpol] [--rollouts gateway,web]
  --reuse     test the cluster that runs (npm run stack:k8s), and leave it up
  --only      these checks only
  --rollouts  the deployments the rollout check restarts (all by default)`;
const options = parseOptions(USAGE, {
  reuse: { type: 'boolean', default: false },
  only: { type: 'string', default: 'psa,e2e,rollout,faults,nats,netpol' },
  rollouts: { type: 'string', default: [...SERVICES, 'web'].join(',') },
}).values;
const rollouts = new Set(options.rollouts.split(','));
const only = new Set(options.only.split(','));
const checks: Array<[string, string, () => Promise<void>]> = [
  ['psa', 'every pod ready, a privileged pod refused', podSecurity],
  ['e2e', 'end-to-end scenarios through the web Service', scenarios],
  ['rollout', 'rollout restart of every deployment while 20 games play', rolloutRestarts],
  ['faults', 'kubectl delete pod and SIGKILL while 20 games play', faults],
  ['nats', "each service's NATS user refused outside its permissions", natsUsers],
  ['netpol', 'NetworkPolicies enforced: NATS refuses a pod outside the release', networkPolicies],
];

const started = Date.now();
let failed = false;
rmSync(ARTIFACTS, { recursive: true, force: true });
mkdirSync(ARTIFACTS, { recursive: true });
try {
  if (!options.reuse) {
    await step('images (npm run images, cached)', () => buildImages());
    await step('the cluster and the chart (Pod Security Admission restricted)', () =>
      up({ values: [ciValues()] }),
    );
  }
  for (const [key, name, check] of checks) if (only.has(key)) await step(name, check);
} catch (error) {
  failed = true;
  console.error(red((error as Error).message));
} finally {
  await saveLogs().catch((error: unknown) =>
    console.error(red(`saving logs failed: ${(error as Error).message}`)),
  );
  if (!options.reuse)
    await step('down: nothing left behind', down).catch((error: unknown) => {
      failed = true;
      console.error(red(`down failed: ${(error as Error).message}`));
    });
}
for (const [name, ms] of timings) console.log(`  ${name.padEnd(64)} ${formatDuration(ms)}`);
if (failed) process.exit(1);
console.log(green(`✓ Kubernetes stage passed in ${formatDuration(Date.now() - started)}`));
