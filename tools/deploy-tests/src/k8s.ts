import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, globSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import type { Deployment, StatefulSet } from 'kubernetes-types/apps/v1';
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2';
import type {
  ConfigMap,
  Container,
  Namespace,
  PodSpec,
  Secret,
  SecretProjection,
} from 'kubernetes-types/core/v1';
import type { ObjectMeta } from 'kubernetes-types/meta/v1';
import type { Ingress, NetworkPolicy } from 'kubernetes-types/networking/v1';

/** Any rendered object: parse() makes sure it has a kind and a name. */
export interface K8sObject {
  kind: string;
  metadata: ObjectMeta & { name: string };
}
/** An object of kubernetes-types as parse() returns it, with its kind and name. */
export type Rendered<T> = T & K8sObject;
/** The kinds the tests look up with one() and all(), by name. */
interface Kinds {
  ConfigMap: ConfigMap;
  Deployment: Deployment;
  HorizontalPodAutoscaler: HorizontalPodAutoscaler;
  Ingress: Ingress;
  Namespace: Namespace;
  NetworkPolicy: NetworkPolicy;
  Secret: Secret;
  StatefulSet: StatefulSet;
}
export type Kind = keyof Kinds;
/** What runs the pods: a Deployment or a StatefulSet. */
export type Workload = Deployment | StatefulSet;

export const ROOT = path.resolve(__dirname, '../../..');
/** Where setup.ts --helm puts helm, its plugins, kubeconform, the Kubernetes schemas and checkov. */
export const TOOLS = path.join(ROOT, '.tools');
export const HELM = path.join(TOOLS, 'bin', 'helm');
/** helm's environment: the workspace's own helm plugins (helm unittest), never the user's. */
export const HELM_ENV = { ...process.env, HELM_PLUGINS: path.join(TOOLS, 'helm-plugins') };
/** The versions setup.ts installed (tools/scripts/lib/workspace.ts pins them). */
export const VERSIONS: Record<string, string> = JSON.parse(
  readFileSync(path.join(TOOLS, 'bin', '.versions.json'), 'utf8'),
);
/** The Kubernetes version the charts are rendered for and whose API schemas validate them. */
export const KUBE_VERSION = String(VERSIONS['kubernetes-schemas'] ?? 'v1.34.0').replace(/^v/, '');

/** helm/<name>: whether it is a library, its file:// dependencies and its ci/*.yaml value sets. */
export interface Chart {
  name: string;
  dir: string;
  library: boolean;
  dependsOn: string[];
  scenarios: string[];
}

/** Every chart under helm/, each after the charts it depends on. */
export function listCharts(): Chart[] {
  const charts = globSync('*/Chart.yaml', { cwd: path.join(ROOT, 'helm') })
    .sort()
    .map((file): Chart => {
      const name = path.dirname(file);
      const dir = path.join(ROOT, 'helm', name);
      const chart = parseYaml(readFileSync(path.join(dir, 'Chart.yaml'), 'utf8')) as {
        type?: string;
        dependencies?: { repository?: string }[];
      };
      return {
        name,
        dir,
        library: chart.type === 'library',
        dependsOn: (chart.dependencies ?? []).flatMap((d) =>
          d.repository?.startsWith('file://../') ? [d.repository.slice('file://../'.length)] : [],
        ),
        scenarios: globSync('ci/*.{yaml,yml}', { cwd: dir })
          .sort()
          .map((f) => path.join(dir, f)),
      };
    });
  const byName = new Map(charts.map((chart) => [chart.name, chart]));
  const depth = (chart: Chart): number =>
    Math.max(0, ...chart.dependsOn.map((n) => 1 + depth(must(byName.get(n), `helm/${n}`))));
  return charts.sort((a, b) => depth(a) - depth(b));
}

/** The Oasis 198 service charts, each installable on its own. */
export const SERVICES = ['gateway', 'auth', 'rewards', 'rooms', 'game-timer', 'tournaments', 'web'] as const;
export const NEST_SERVICES = SERVICES.filter((s) => s !== 'web');
/** The services with a MongoDB database (the game timer keeps its deadlines in NATS). */
export const DATABASE_SERVICES = ['auth', 'rewards', 'rooms', 'tournaments'] as const;

export interface RenderOptions {
  /** Value files, relative to the chart (e.g. ci/hpa-off.yaml) or the workspace root. */
  values?: string[];
  set?: string[];
  /** The release's namespace (default oasis198). */
  namespace?: string;
}

const cache = new Map<string, K8sObject[]>();

/** `helm template oasis198 helm/<chart>` in namespace oasis198, parsed. */
export function helmTemplate(chart: string, options: RenderOptions = {}): K8sObject[] {
  const key = JSON.stringify([chart, options]);
  if (!cache.has(key)) cache.set(key, parse(helm(helmArgs(path.join('helm', chart), options))));
  return structuredClone(must(cache.get(key), key));
}

/**
 * `kubectl kustomize k8s/overlays/<overlay>`, parsed, from a fresh copy of k8s/ in which the
 * overlay's generate-secrets.sh (when it has one) has made its secrets, as an operator would.
 */
export function kustomize(overlay: string): K8sObject[] {
  return parse(kustomizeText(overlay));
}

/** The text of `kubectl kustomize k8s/overlays/<overlay>`, made as kustomize() says. */
export function kustomizeText(overlay: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oasis-kustomize-'));
  try {
    const k8s = path.join(dir, 'k8s');
    // Without any secrets/ folder of the checkout: the copy makes its own.
    cpSync(path.join(ROOT, 'k8s'), k8s, {
      recursive: true,
      filter: (source) => path.basename(source) !== 'secrets',
    });
    const overlayDir = path.join(k8s, 'overlays', overlay);
    const generate = path.join(overlayDir, 'generate-secrets.sh');
    if (existsSync(generate)) execFileSync('sh', [generate], { stdio: 'pipe' });
    return execFileSync(process.env['KUBECTL'] ?? 'kubectl', ['kustomize', overlayDir], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `helm template` of the chart in `chartDir`, whose ci/ value files `values` may name. */
function helmArgs(
  chartDir: string,
  { values = [], set = [], namespace = 'oasis198' }: RenderOptions,
): string[] {
  const args = ['template', 'oasis198', chartDir, '--namespace', namespace, '--kube-version', KUBE_VERSION];
  for (const file of values) args.push('-f', file.startsWith('ci/') ? path.join(chartDir, file) : file);
  for (const value of set) args.push('--set', value);
  return args;
}

export const helm = (args: string[]): string =>
  execFileSync(HELM, args, {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: 'pipe',
    maxBuffer: 64 << 20,
    env: HELM_ENV,
  });

/** The objects of a render; one without a kind or a name fails (the tests find objects by them). */
function parse(text: string): K8sObject[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length) throw new Error(doc.errors.map((e) => e.message).join('\n'));
    const object = doc.toJS() as Partial<K8sObject> | null;
    if (!object) return [];
    if (typeof object.kind !== 'string' || typeof object.metadata?.name !== 'string')
      throw new Error(`an object without a kind or a name:\n${doc.toString()}`);
    return [object as K8sObject];
  });
}

/** The one object of this kind (and name); fails when there is none or several. */
export function one<K extends Kind>(objects: K8sObject[], kind: K, name?: string): Rendered<Kinds[K]> {
  const ofKind = all(objects, kind);
  const found = ofKind.filter((o) => name === undefined || o.metadata.name === name);
  if (found.length !== 1) {
    const names = ofKind.map((o) => o.metadata.name);
    throw new Error(
      `expected one ${kind}${name ? ` named ${name}` : ''}, found ${found.length} (${names.join(', ')})`,
    );
  }
  return must(found[0], kind);
}

/** Every object of this kind. */
export function all<K extends Kind>(objects: K8sObject[], kind: K): Rendered<Kinds[K]>[] {
  return objects.filter((o): o is Rendered<Kinds[K]> => o.kind === kind);
}

/** Whether a label selector (matchLabels) selects these labels. */
export function selects(
  selector: Record<string, string> | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  return Object.entries(selector ?? {}).every(([key, value]) => labels?.[key] === value);
}

/** The value, or a test failure naming what is missing. */
export function must<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new Error(`missing: ${what}`);
  return value;
}

/** An object's spec, or a test failure naming the object. */
export function spec<S>(object: { kind?: string; metadata?: ObjectMeta; spec?: S }): S {
  return must(object.spec, `the spec of ${object.kind}/${object.metadata?.name}`);
}

/** The spec of a workload's pods. */
export function podSpec(workload: Workload): PodSpec {
  return must(spec(workload).template.spec, `the pod spec of ${workload.metadata?.name}`);
}

/** The metadata of a workload's pods: their labels and annotations. */
export function podMetadata(workload: Workload): ObjectMeta {
  return must(spec(workload).template.metadata, `the pod metadata of ${workload.metadata?.name}`);
}

/** The first container of a workload's pods. */
export function mainContainer(workload: Workload): Container {
  return must(podSpec(workload).containers[0], `a container in ${workload.metadata?.name}`);
}

/** Where a file of a container comes from: a Secret's key. */
export interface SecretFile {
  secret: string;
  key: string;
  /** Whether the container mounts it read-only. */
  readOnly: boolean;
}

/** Every file a container sees from a Secret, by its path in the container. */
export function secretFiles(pod: PodSpec, container: Container): Map<string, SecretFile> {
  const files = new Map<string, SecretFile>();
  for (const mount of container.volumeMounts ?? []) {
    const volume = pod.volumes?.find((v) => v.name === mount.name);
    // A secret volume, or the secret sources of a projected one.
    const sources: SecretProjection[] = volume?.secret
      ? [{ name: volume.secret.secretName, items: volume.secret.items }]
      : (volume?.projected?.sources ?? []).flatMap((source) => (source.secret ? [source.secret] : []));
    for (const source of sources) {
      const secret = must(source.name, `the name of a Secret in ${volume?.name}`);
      // Every source names its keys: a Secret's other keys never show up in the container.
      for (const item of must(source.items, `the items of Secret ${secret} in ${volume?.name}`)) {
        // A subPath mount shows one file of the volume, at the mount path.
        if (mount.subPath && item.path !== mount.subPath) continue;
        const file = mount.subPath ? mount.mountPath : path.posix.join(mount.mountPath, item.path);
        files.set(file, { secret, key: item.key, readOnly: mount.readOnly === true });
      }
    }
  }
  return files;
}

/**
 * The secrets a service reads as files, by variable: each `<NAME>_FILE` environment variable and
 * the Secret's key mounted at the path it names (undefined when nothing is mounted there).
 */
export function secretVariables(pod: PodSpec, container: Container): Record<string, SecretFile | undefined> {
  const files = secretFiles(pod, container);
  return Object.fromEntries(
    (container.env ?? [])
      .filter((e) => e.name.endsWith('_FILE'))
      .map((e) => [e.name.slice(0, -'_FILE'.length), files.get(e.value ?? '')]),
  );
}

/** Every container of a pod, init containers first. */
export function podContainers(pod: PodSpec): Container[] {
  return [...(pod.initContainers ?? []), ...pod.containers];
}
