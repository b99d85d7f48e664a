// `npm run stack:containers`: the whole system as containers (compose.yaml), replicated, detached.
// Builds what is missing (npm run images), writes the local secret, starts or updates the stack,
// waits until it answers and prints the URL. `npm run stack:containers -- down` removes it all:
// containers, network and volumes (the images stay, as a cache). `-- secrets` only writes the
// secret files (for `docker compose up`).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import { waitFor } from '../../scripts/lib/net.ts';
import { SHARED_ADDRESS_LIMITS } from '../../scripts/lib/stack.ts';
import {
  type ComposeFile,
  containersOf,
  dockerCompose,
  down,
  loadCompose,
  replicaNames,
  up,
} from './compose.ts';
import { bold, dim, formatDuration, green, podman, red, ROOT } from './exec.ts';
import { buildImages } from './images.ts';
import { ensureService } from './podman-service.ts';

const SECRET_FILE = path.join(ROOT, '.data', 'containers', 'jwt-key.pem');

/**
 * Raises the gateway's limits for test runs, all of whose players share one address: the
 * variables the local test stacks get (SHARED_ADDRESS_LIMITS), of which compose.yaml passes on
 * the per-address ones and those on account work. Set before the stack starts (a changed value recreates the gateways); a
 * value already set is kept.
 */
export function raiseAddressLimitsForTests(): void {
  for (const [name, value] of Object.entries(SHARED_ADDRESS_LIMITS)) process.env[name] ??= value;
}

/** The entry point, from the variable compose.yaml reads. */
export const entryUrl = (): string => `http://127.0.0.1:${process.env['PORT'] ?? '8080'}`;

/** The entry point and each gateway replica at the host port Compose published it on. */
export async function stackUrls(): Promise<{ entry: string; gateways: string[] }> {
  const replicas = loadCompose().services['gateway']?.deploy?.replicas ?? 1;
  const gateways: string[] = [];
  for (let n = 1; n <= replicas; n++) {
    const { stdout } = await dockerCompose(['port', '--index', String(n), 'gateway', '8080']);
    gateways.push(`http://${stdout.trim()}`);
  }
  return { entry: entryUrl(), gateways };
}

/** A random secret, made once and kept (readable by the containers' user, in a 0700 folder). */
function ensureSecret(file: string, bytes = 48): void {
  if (existsSync(file)) return;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, randomBytes(bytes).toString('base64url') + '\n', { flag: 'wx' });
  chmodSync(file, 0o644);
}

/**
 * The ES256 signing key pair, made once and kept: auth's private key and, derived from it, the
 * public key the gateways get (readable by the containers' user, in a 0700 folder).
 */
function ensureSigningKey(privateFile: string, publicFile: string): void {
  if (!existsSync(privateFile)) {
    mkdirSync(path.dirname(privateFile), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { flag: 'wx' });
    chmodSync(privateFile, 0o644);
  }
  const publicKey = createPublicKey(readFileSync(privateFile, 'utf8')).export({
    type: 'spki',
    format: 'pem',
  });
  if (existsSync(publicFile) && readFileSync(publicFile, 'utf8') === publicKey) return;
  writeFileSync(publicFile, publicKey);
  chmodSync(publicFile, 0o644);
}

/** The secret that carries every NATS user's password to NATS, as nats.conf variables. */
const NATS_PASSWORDS_SECRET = 'nats_passwords';

/**
 * The signing key pair, and a NATS password for each service that has a NATS_USER: the file of the
 * secret its NATS_PASSWORD_FILE names. NATS gets them all as `NATS_PASSWORD_<USER>: "..."`
 * lines, rewritten from those files whenever one changed.
 */
export function ensureSecrets(compose: ComposeFile): void {
  const fileOf = (secret: string) => {
    const file = compose.secrets?.[secret]?.file;
    if (!file) throw new Error(`compose.yaml: no file for the secret ${secret}`);
    return path.resolve(ROOT, file);
  };
  ensureSigningKey(fileOf('jwt_private_key'), fileOf('jwt_public_key'));
  const lines = Object.values(compose.services).flatMap((spec) => {
    const user = spec.environment?.['NATS_USER'];
    const passwordFile = spec.environment?.['NATS_PASSWORD_FILE'];
    if (typeof user !== 'string' || typeof passwordFile !== 'string') return [];
    const file = fileOf(path.basename(passwordFile));
    ensureSecret(file, 24);
    const password = readFileSync(file, 'utf8').trim();
    const variable = `NATS_PASSWORD_${user.toUpperCase().replaceAll('-', '_')}`;
    return [`${variable}: ${JSON.stringify(password)}`];
  });
  const conf = fileOf(NATS_PASSWORDS_SECRET);
  const text = lines.join('\n') + '\n';
  if (existsSync(conf) && readFileSync(conf, 'utf8') === text) return;
  writeFileSync(conf, text);
  chmodSync(conf, 0o644);
}

/**
 * The check of one replica of a Node service from inside its container (only gateways publish a
 * port): its own /health/ready on HTTP_PORT, which covers NATS and its database.
 */
export async function replicaReady(name: string, port = '8080'): Promise<boolean> {
  const script = `fetch('http://127.0.0.1:${port}/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`;
  return (await podman(['exec', name, 'node', '-e', script], { allowFailure: true })).code === 0;
}

/** Each replica of each service with an HTTP_PORT (the Node services), by container name. */
function serviceReplicas(compose: ComposeFile): Array<{ name: string; port: string }> {
  return Object.entries(compose.services).flatMap(([service, spec]) => {
    const port = spec.environment?.['HTTP_PORT'];
    if (port === undefined || port === null) return [];
    return replicaNames(compose, service).map((name) => ({ name, port: String(port) }));
  });
}

/**
 * Waits until the entry point serves the app and the API, every gateway replica is healthy, and
 * every replica of every service is ready. A service that failed its first start (a database not
 * answering yet) is restarted by its policy meanwhile; the stack is not ready until it is back.
 */
async function waitUntilReady(compose: ComposeFile): Promise<void> {
  const replicas = serviceReplicas(compose);
  const answers = (url: string) =>
    fetch(url, { signal: AbortSignal.timeout(2000) })
      .then((r) => r.ok)
      .catch(() => false);
  const probe = async () => {
    const { entry, gateways } = await stackUrls();
    const checks = [`${entry}/`, `${entry}/api/rooms`, ...gateways.map((g) => `${g}/health`)];
    const results = await Promise.all(checks.map(answers));
    const failing = checks.filter((_, i) => !results[i]);
    if (failing.length) throw new Error(`no answer from ${failing.join(', ')}`);
    const ready = await Promise.all(replicas.map(({ name, port }) => replicaReady(name, port)));
    const waiting = replicas.filter((_, i) => !ready[i]).map(({ name }) => name);
    if (waiting.length) throw new Error(`not ready yet: ${waiting.join(', ')}`);
    return true;
  };
  await waitFor(probe, { timeoutMs: 120_000, intervalMs: 500, what: 'the container stack' });
}

export async function startContainerStack(): Promise<void> {
  await buildImages();
  const compose = loadCompose();
  ensureSecrets(compose);
  await ensureService(); // Compose talks to podman's Docker API
  await up();
  await waitUntilReady(compose);
}

export async function stopContainerStack(): Promise<void> {
  await ensureService();
  await down();
}

if (import.meta.main) {
  const command = process.argv[2] ?? 'up';
  const started = Date.now();
  try {
    if (command === 'down') {
      await stopContainerStack();
      console.log(green('✓ the container stack is removed (containers, network, volumes)'));
    } else if (command === 'up') {
      await startContainerStack();
      const { entry, gateways } = await stackUrls();
      const running = await containersOf(loadCompose().name);
      console.log(
        `\n${green('✓')} ${running.length} containers ready in ${formatDuration(Date.now() - started)}\n\n` +
          `  Open ${bold(entry)}\n  Gateway replicas: ${gateways.join(', ')}\n` +
          dim(`  Stop with: npm run stack:containers -- down\n`),
      );
    } else if (command === 'secrets') {
      ensureSecrets(loadCompose());
      console.log(green(`✓ the secret files are in ${path.dirname(SECRET_FILE)}`));
    } else if (command === 'ps') {
      for (const c of await containersOf(loadCompose().name)) console.log(`${c.name}\t${c.state}`);
    } else {
      console.error('usage: npm run stack:containers [-- up | down | ps | secrets]');
      process.exit(2);
    }
  } catch (error) {
    console.error(red((error as Error).message));
    process.exit(1);
  }
}
