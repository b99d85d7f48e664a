// A small Compose runner for podman: reads compose.yaml and runs it as `docker compose` would,
// for the subset of the Compose specification this project uses. Debian's podman-compose (1.0.3)
// cannot give each replica its own host port from a range, which the stack needs (each gateway
// replica on a port of its own), so this runner does what it does and that too.
//
// Containers, the network and volumes carry the standard labels (com.docker.compose.project,
// .service, .container-number), so tools find a replica of any service by label.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { imageId, podman, ROOT, shortHash } from './exec.ts';

type Dict<T = unknown> = Record<string, T>;

/** The subset of the Compose specification compose.yaml uses (validated by compose.test.ts). */
export interface ServiceSpec {
  image: string;
  command?: string[];
  environment?: Dict<string | number | boolean | null>;
  ports?: string[];
  volumes?: string[];
  tmpfs?: string[];
  read_only?: boolean;
  user?: string;
  restart?: string;
  cap_drop?: string[];
  security_opt?: string[];
  ulimits?: Dict<{ soft: number; hard: number }>;
  stop_grace_period?: string;
  depends_on?: string[] | Dict<{ restart?: boolean }>;
  deploy?: { replicas?: number };
  configs?: Array<{ source: string; target: string }>;
  secrets?: string[];
  /** A fixed address on the project's network: `networks: { default: { ipv4_address } }`. */
  networks?: { default?: { ipv4_address?: string } };
}

export interface ComposeFile {
  name: string;
  services: Dict<ServiceSpec>;
  volumes?: Dict<unknown>;
  configs?: Dict<{ file: string }>;
  secrets?: Dict<{ file: string }>;
  networks?: { default?: { ipam?: { config?: Array<{ subnet?: string; ip_range?: string }> } } };
}

export const COMPOSE_FILE = path.join(ROOT, 'compose.yaml');

/** Compose interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, $$. */
export function interpolate(text: string, env: NodeJS.ProcessEnv = process.env): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (match, name, op, arg) => {
    if (match === '$$') return '$';
    const value = env[name as string];
    const unset = value === undefined || ((op as string | undefined)?.startsWith(':') && value === '');
    if (!op) return value ?? '';
    if ((op as string).endsWith('-')) return unset ? (arg as string) : (value as string);
    if (unset) throw new Error(`compose.yaml: ${name as string} is required: ${arg as string}`);
    return value as string;
  });
}

export function loadCompose(file = COMPOSE_FILE, env: NodeJS.ProcessEnv = process.env): ComposeFile {
  return parse(interpolate(readFileSync(file, 'utf8'), env), { merge: true }) as ComposeFile;
}

export const containerName = (project: string, service: string, n: number): string =>
  `${project}-${service}-${n}`;

/** The container names of a service's replicas (`deploy.replicas`, 1 by default), first to last. */
export const replicaNames = (compose: ComposeFile, service: string): string[] =>
  Array.from({ length: compose.services[service]?.deploy?.replicas ?? 1 }, (_, i) =>
    containerName(compose.name, service, i + 1),
  );

const dependencies = (spec: ServiceSpec): string[] =>
  Array.isArray(spec.depends_on) ? spec.depends_on : Object.keys(spec.depends_on ?? {});

/** Dependencies whose replacement restarts this service (`depends_on: { x: { restart: true } }`). */
const restartsWith = (spec: ServiceSpec): string[] =>
  Object.entries(Array.isArray(spec.depends_on) ? {} : (spec.depends_on ?? {}))
    .filter(([, how]) => how?.restart === true)
    .map(([name]) => name);

/** Services in start order: each after what it depends on. */
export function startOrder(compose: ComposeFile): string[] {
  const order: string[] = [];
  const visit = (name: string, stack: string[]) => {
    if (order.includes(name)) return;
    if (stack.includes(name))
      throw new Error(`compose.yaml: depends_on cycle ${[...stack, name].join(' → ')}`);
    const spec = compose.services[name];
    if (!spec) throw new Error(`compose.yaml: unknown service ${name}`);
    for (const dep of dependencies(spec)) visit(dep, [...stack, name]);
    order.push(name);
  };
  for (const name of Object.keys(compose.services)) visit(name, []);
  return order;
}

/** The host side of a port mapping for replica n: a host range gives each replica one port. */
export function publishFor(mapping: string, n: number): string {
  const parts = mapping.split(':'); // [ip:][host:]container
  const host = parts.length > 1 ? parts[parts.length - 2] : undefined;
  const range = host ? /^(\d+)-(\d+)$/.exec(host) : null;
  if (!range) return mapping;
  const port = Number(range[1]) + n - 1;
  if (port > Number(range[2])) throw new Error(`port range ${host} has no port for replica ${n}`);
  parts[parts.length - 2] = String(port);
  return parts.join(':');
}

/** The `podman run` arguments of replica n of a service. */
export function runArgs(compose: ComposeFile, service: string, n: number, configHash: string): string[] {
  const spec = compose.services[service] as ServiceSpec;
  const project = compose.name;
  const labels = {
    project,
    service,
    'container-number': n,
    oneoff: 'False',
    'project.working_dir': path.dirname(COMPOSE_FILE),
    'project.config_files': COMPOSE_FILE,
    'config-hash': configHash,
  };
  const fileOf = (kind: 'configs' | 'secrets', source: string) => {
    const file = compose[kind]?.[source]?.file;
    if (!file) throw new Error(`compose.yaml: ${kind} ${source} has no file`);
    return path.resolve(ROOT, file);
  };
  const volumeOf = (volume: string) => {
    const [source = '', target, mode] = volume.split(':');
    const bind = source.startsWith('.') || source.startsWith('/');
    return [bind ? path.resolve(ROOT, source) : `${project}_${source}`, target, mode]
      .filter(Boolean)
      .join(':');
  };
  const pairs = (dict: Dict = {}, prefix = '') =>
    Object.entries(dict).map(([k, v]) => `${prefix}${k}=${v ?? ''}`);
  const mounts = [
    ...(spec.volumes ?? []).map(volumeOf),
    ...(spec.configs ?? []).map((c) => `${fileOf('configs', c.source)}:${c.target}:ro`),
    ...(spec.secrets ?? []).map((name) => `${fileOf('secrets', name)}:/run/secrets/${name}:ro`),
  ];
  const ports = spec.ports?.map((mapping) => publishFor(mapping, n));
  const address = spec.networks?.default?.ipv4_address;
  if (address && (spec.deploy?.replicas ?? 1) > 1)
    throw new Error(`compose.yaml: ${service} has a fixed address and more than one replica`);
  const limits = Object.entries(spec.ulimits ?? {}).map(([k, l]) => `${k}=${l.soft}:${l.hard}`);
  const grace = spec.stop_grace_period && String(parseInt(spec.stop_grace_period, 10));
  const each = (flag: string, values: Array<string | undefined> = []) =>
    values.flatMap((value) => (value ? [flag, value] : []));
  return [
    ...['run', '--detach', '--name', containerName(project, service, n)],
    ...['--network', `${project}_default`, '--network-alias', service],
    ...each('--ip', [address]),
    ...each('--label', pairs(labels, 'com.docker.compose.')),
    ...each('--restart', [spec.restart]),
    ...(spec.read_only ? ['--read-only'] : []),
    ...each('--user', [spec.user]),
    ...each('--cap-drop', spec.cap_drop),
    ...each('--security-opt', spec.security_opt),
    ...each('--tmpfs', spec.tmpfs),
    ...each('--ulimit', limits),
    ...each('--stop-timeout', [grace]),
    ...each('--env', pairs(spec.environment)),
    ...each('--publish', ports),
    ...each('--volume', mounts),
    spec.image,
    ...(spec.command ?? []),
  ];
}

/** The project's containers: name, state and the config-hash label of the spec each was made from. */
export async function containersOf(project: string) {
  const filter = `label=com.docker.compose.project=${project}`;
  const { stdout } = await podman(['ps', '--all', '--filter', filter, '--format', 'json']);
  const list = JSON.parse(stdout || '[]') as Array<{
    Names: string[];
    State: string;
    Labels: Dict<string> | null;
  }>;
  return list.map((c) => ({
    name: c.Names[0] ?? '',
    state: c.State,
    configHash: c.Labels?.['com.docker.compose.config-hash'] ?? '',
  }));
}

/**
 * Creates the network and volumes, then each replica of each service in dependency order. A
 * replica whose configuration or image is unchanged is left running; a changed one is replaced.
 */
export async function up(compose: ComposeFile, log: (line: string) => void = () => undefined): Promise<void> {
  const project = compose.name;
  const create = async (kind: 'network' | 'volume', name: string, label: string, options: string[] = []) => {
    if ((await podman([kind, 'exists', `${project}_${name}`], { allowFailure: true })).code === 0) return;
    const labels = [`project=${project}`, `${label}=${name}`].map((l) => `--label=com.docker.compose.${l}`);
    await podman([kind, 'create', ...labels, ...options, `${project}_${name}`]);
  };
  // The subnet only: podman's CNI allocator refuses a fixed address outside --ip-range, and it
  // hands out addresses from the bottom of the subnet, far below the fixed ones in compose.yaml.
  const subnet = compose.networks?.default?.ipam?.config?.[0]?.subnet;
  await create('network', 'default', 'network', subnet ? ['--subnet', subnet] : []);
  await checkSubnet(project, subnet);
  for (const volume of Object.keys(compose.volumes ?? {})) await create('volume', volume, 'volume');
  // Every secret file must exist before a container mounts it (podman would make a directory).
  for (const [name, secret] of Object.entries(compose.secrets ?? {})) {
    if (secret.file && !existsSync(path.resolve(ROOT, secret.file)))
      throw new Error(`compose.yaml: the file of secret ${name}, ${secret.file}, does not exist`);
  }
  const existing = new Map((await containersOf(project)).map((c) => [c.name, c]));
  const replaced = new Set<string>();
  for (const service of startOrder(compose)) {
    const spec = compose.services[service] as ServiceSpec;
    const configHash = shortHash(JSON.stringify(spec), await imageId(spec.image));
    for (const [i, name] of replicaNames(compose, service).entries()) {
      const n = i + 1;
      const current = existing.get(name);
      existing.delete(name);
      if (current?.configHash === configHash) {
        if (current.state !== 'running') await podman(['start', name]);
        else if (restartsWith(spec).some((dep) => replaced.has(dep))) {
          await podman(['restart', '--time', '10', name]);
          log(`restarted ${name}`);
        }
        continue;
      }
      replaced.add(service);
      if (current) await podman(['rm', '--force', '--time', '10', name]);
      await podman(runArgs(compose, service, n, configHash));
      log(`${current ? 'recreated' : 'started'} ${name}`);
    }
  }
  // Replicas beyond the wanted count, or of services no longer in the file.
  for (const stale of existing.values()) {
    await podman(['rm', '--force', '--time', '10', stale.name]);
    log(`removed ${stale.name}`);
  }
}

/** A network made before compose.yaml fixed its subnet cannot give a container its fixed address. */
async function checkSubnet(project: string, subnet: string | undefined): Promise<void> {
  if (!subnet) return;
  const { stdout } = await podman(['network', 'inspect', `${project}_default`]);
  if (!stdout.includes(`"${subnet}"`))
    throw new Error(
      `the network ${project}_default is not on ${subnet} (compose.yaml): remove the stack first (npm run stack:containers -- down)`,
    );
}

/** Removes every container, the network and the volumes of the project. */
export async function down(project: string): Promise<void> {
  const names = (await containersOf(project)).map((c) => c.name);
  if (names.length) await podman(['rm', '--force', '--time', '10', ...names]);
  await podman(['network', 'rm', '--force', `${project}_default`], { allowFailure: true });
  // Unused once the containers are gone: prune takes exactly the project's volumes.
  const filter = `label=com.docker.compose.project=${project}`;
  await podman(['volume', 'prune', '--force', '--filter', filter]);
}
