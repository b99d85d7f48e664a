// What helm unittest cannot say (the charts' own suites: helm/<chart>/tests/*_test.yaml): keys
// checked with node:crypto, invariants over every workload and value set, which pods the
// NetworkPolicies let through, the charts' values side by side, and the kustomize overlays.
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1';
import { parse } from 'yaml';
import {
  all,
  DATABASE_SERVICES,
  helmTemplate,
  type K8sObject,
  kustomize,
  mainContainer,
  must,
  NEST_SERVICES,
  one,
  podContainers,
  podMetadata,
  podSpec,
  ROOT,
  secretFiles,
  secretVariables,
  SERVICES,
  selects,
  spec,
} from './k8s';
import { isKnownSecret } from '@oasis198/service-kit';

/** Whether some rule of a policy lets `labels` pods through on `port` (egress: to; ingress: from). */
function allows(
  policy: NetworkPolicy,
  direction: 'ingress' | 'egress',
  labels: Record<string, string>,
  port: number | string,
) {
  const { ingress = [], egress = [] } = spec(policy);
  const rules =
    direction === 'egress'
      ? egress.map((rule) => ({ ports: rule.ports, peers: rule.to }))
      : ingress.map((rule) => ({ ports: rule.ports, peers: rule.from }));
  return rules.some(({ ports, peers }) => {
    const portOk = !ports || ports.some((p) => p.port === port);
    const peerOk = !peers || peers.some((peer) => selects(peer.podSelector?.matchLabels, labels));
    return portOk && peerOk;
  });
}

const podLabels = (objects: K8sObject[], kind: 'Deployment' | 'StatefulSet', name: string) =>
  must(podMetadata(one(objects, kind, name)).labels, `the pod labels of ${name}`);

/** The umbrella's value sets that npm test renders: its defaults and each ci/*.yaml. */
const UMBRELLA_SCENARIOS: string[][] = [
  [],
  ...readdirSync(path.join(ROOT, 'helm', 'oasis198', 'ci'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => [`ci/${f}`]),
];

const workloads = (objects: K8sObject[]) => [...all(objects, 'Deployment'), ...all(objects, 'StatefulSet')];

describe('the oasis198 umbrella chart', () => {
  it("gives the gateway the public half of auth's key when the keys are values (docs/deploy.md, trying it out)", () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    // As `--set-file auth.jwt.value=jwt-key.pem --set-file auth.jwt.publicKey=...` gives them.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'oasis-jwt-values-'));
    const file = path.join(dir, 'keys.yaml');
    const jwt = {
      value: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    };
    writeFileSync(file, JSON.stringify({ auth: { jwt } }));
    let rendered: K8sObject[];
    try {
      rendered = helmTemplate('oasis198', { values: ['ci/in-cluster-deps.yaml', file] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const keyOf = (workload: string, variable: string) =>
      secretsRead(rendered).find((r) => r.workload === workload && r.variable === variable)?.value ?? '';
    const signing = createPrivateKey(keyOf('oasis198-auth', 'JWT_PRIVATE_KEY'));
    const checking = createPublicKey(keyOf('oasis198-gateway', 'JWT_PUBLIC_KEY'));
    expect(createPublicKey(signing).export({ type: 'spki', format: 'pem' })).toBe(
      checking.export({ type: 'spki', format: 'pem' }),
    );
    expect(keyOf('oasis198-gateway', 'JWT_PRIVATE_KEY')).toBe('');
  });

  it.each(UMBRELLA_SCENARIOS.map((values) => [values.join() || 'default values', values]))(
    'passes every secret as a read-only file, none as an environment variable (%s)',
    (_, values) => {
      const rendered = helmTemplate('oasis198', { values });
      for (const workload of workloads(rendered)) {
        const pod = podSpec(workload);
        for (const container of podContainers(pod)) {
          const where = `${workload.metadata.name}/${container.name}`;
          const fromSecrets = (container.env ?? [])
            .filter((e) => e.valueFrom?.secretKeyRef)
            .map((e) => e.name);
          expect([where, fromSecrets, (container.envFrom ?? []).filter((e) => e.secretRef)]).toEqual([
            where,
            [],
            [],
          ]);
          for (const name of ['JWT_PRIVATE_KEY', 'JWT_PUBLIC_KEY', 'MONGO_URL', 'NATS_PASSWORD']) {
            expect([where, (container.env ?? []).some((e) => e.name === name)]).toEqual([where, false]);
          }
          for (const [file, source] of secretFiles(pod, container)) {
            expect([where, file, source.readOnly]).toEqual([where, file, true]);
          }
        }
      }
    },
  );

  it.each(UMBRELLA_SCENARIOS.map((values) => [values.join() || 'default values', values]))(
    'runs every container, init containers included, as a UID and GID of 10000 or more, pulling its image on every start (%s)',
    (_, values) => {
      for (const workload of workloads(helmTemplate('oasis198', { values }))) {
        const pod = podSpec(workload);
        const name = workload.metadata.name;
        // The volumes' group (Secret files are readable by it only) is the pods' own group.
        expect([name, pod.securityContext?.fsGroup]).toEqual([name, pod.securityContext?.runAsGroup]);
        for (const container of podContainers(pod)) {
          const context = { ...pod.securityContext, ...container.securityContext };
          const where = `${name}/${container.name}`;
          const ids = [context.runAsUser, context.runAsGroup, pod.securityContext?.fsGroup];
          const high = ids.every((id) => typeof id === 'number' && id >= 10000);
          expect([where, ids, high]).toEqual([where, ids, true]);
          expect([where, container.imagePullPolicy]).toEqual([where, 'Always']);
        }
      }
    },
  );

  it('lets exactly the right pods through the NetworkPolicies (ci/in-cluster-deps.yaml)', () => {
    const deps = helmTemplate('oasis198', { values: ['ci/in-cluster-deps.yaml'] });
    const policies = all(deps, 'NetworkPolicy');
    const policyOf = (labels: Record<string, string>) =>
      must(
        policies.find((p) => selects(spec(p).podSelector.matchLabels, labels)),
        `a NetworkPolicy over ${JSON.stringify(labels)}`,
      );
    const nats = podLabels(deps, 'StatefulSet', 'oasis198-nats');
    const mongodb = podLabels(deps, 'StatefulSet', 'oasis198-mongodb');
    const pod = (service: string) => podLabels(deps, 'Deployment', `oasis198-${service}`);
    for (const service of NEST_SERVICES) {
      const labels = pod(service);
      expect(allows(policyOf(labels), 'egress', nats, 4222)).toBe(true);
      expect(allows(policyOf(nats), 'ingress', labels, 'client')).toBe(true);
      const usesMongo = (DATABASE_SERVICES as readonly string[]).includes(service);
      expect(allows(policyOf(labels), 'egress', mongodb, 27017)).toBe(usesMongo);
    }
    // web proxies /api to the gateway, and reaches nothing else.
    expect(allows(policyOf(pod('web')), 'egress', pod('gateway'), 8080)).toBe(true);
    expect(allows(policyOf(pod('gateway')), 'ingress', pod('web'), 'http')).toBe(true);
    expect(allows(policyOf(pod('web')), 'egress', nats, 4222)).toBe(false);
    // Nobody reaches into the back-end services but Prometheus.
    for (const service of [...DATABASE_SERVICES, 'game-timer']) {
      expect(allows(policyOf(pod(service)), 'ingress', pod('gateway'), 'http')).toBe(false);
    }
    // NATS and MongoDB accept only Oasis 198 pods; MongoDB calls nothing, NATS only its own nodes.
    expect(allows(policyOf(mongodb), 'ingress', { app: 'intruder' }, 'mongodb')).toBe(false);
    expect(allows(policyOf(nats), 'ingress', nats, 'cluster')).toBe(true);
    expect(allows(policyOf(nats), 'egress', nats, 6222)).toBe(true);
    expect(allows(policyOf(nats), 'egress', pod('gateway'), 8080)).toBe(false);
    expect(spec(policyOf(mongodb)).egress).toEqual([]);
  });

  it('gives every chart the same global defaults', () => {
    const globals = ['oasis198', ...SERVICES].map((chart) => {
      const values = parse(readFileSync(path.join(ROOT, 'helm', chart, 'values.yaml'), 'utf8'));
      return [chart, values.global];
    });
    const [, reference] = must(globals[0], 'the umbrella values');
    for (const [chart, global] of globals) expect([chart, global]).toEqual([chart, reference]);
  });
});

/**
 * Every secret value a workload reads from a Secret of the rendered objects, as a file named after
 * its variable (undefined when the Secret or its key is missing).
 */
function secretsRead(objects: K8sObject[]): { workload: string; variable: string; value?: string }[] {
  const secrets = new Map(all(objects, 'Secret').map((s) => [s.metadata.name, s]));
  return workloads(objects).flatMap((workload) => {
    const pod = podSpec(workload);
    return podContainers(pod).flatMap((container) =>
      [...secretFiles(pod, container)].map(([file, { secret, key }]) => {
        const data = secrets.get(secret)?.data?.[key];
        const value = data === undefined ? undefined : Buffer.from(data, 'base64').toString();
        return { workload: workload.metadata.name, variable: path.posix.basename(file), value };
      }),
    );
  });
}

describe('the kustomize overlays', () => {
  it('dev ships no signing key or password: it makes random ones, and every pod runs in production', () => {
    const objects = kustomize('dev');
    const read = secretsRead(objects);
    const sensitive = read.filter((r) => /NATS_PASSWORD/.test(r.variable));
    expect(sensitive.map((r) => r.variable)).toEqual(
      expect.arrayContaining(['NATS_PASSWORD', 'NATS_PASSWORD_GAME_TIMER']),
    );
    for (const { workload, variable, value = '' } of sensitive) {
      expect([workload, variable, value.length >= 32, isKnownSecret(value)]).toEqual([
        workload,
        variable,
        true,
        false,
      ]);
    }
    // An ES256 key pair: auth's private key, the gateway's public key of the same pair.
    const keyOf = (rows: typeof read, variable: string) =>
      rows.find((r) => r.variable === variable)?.value ?? '';
    const privateKey = createPrivateKey(keyOf(read, 'JWT_PRIVATE_KEY'));
    expect(privateKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(createPublicKey(privateKey).export({ type: 'spki', format: 'pem' })).toBe(
      keyOf(read, 'JWT_PUBLIC_KEY'),
    );
    // The same in a second copy: each copy makes its own.
    const again = keyOf(secretsRead(kustomize('dev')), 'JWT_PRIVATE_KEY');
    expect(again).not.toBe(keyOf(read, 'JWT_PRIVATE_KEY'));
    // Nothing switches the services out of production mode (where known secrets are refused).
    for (const config of all(objects, 'ConfigMap')) expect(config.data?.['NODE_ENV']).toBeUndefined();
    const committed = readFileSync(path.join(ROOT, 'k8s', 'overlays', 'dev', 'kustomization.yaml'), 'utf8');
    expect(committed).not.toMatch(/PRIVATE KEY|NATS_PASSWORD=/);
  });

  it('dev runs the whole game: services, NATS, MongoDB and every Secret they read', () => {
    const objects = kustomize('dev');
    expect(
      all(objects, 'StatefulSet')
        .map((s) => s.metadata.name)
        .sort(),
    ).toEqual(['oasis198-mongodb', 'oasis198-nats']);
    expect(all(objects, 'Deployment')).toHaveLength(SERVICES.length);
    expect(all(objects, 'HorizontalPodAutoscaler')).toEqual([]);
    const namespace = one(objects, 'Namespace');
    expect(namespace.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    for (const object of objects) {
      if (object.kind !== 'Namespace') expect(object.metadata.namespace).toBe(namespace.metadata.name);
    }
    const read = secretsRead(objects);
    expect(read.map((r) => r.variable)).toEqual(
      expect.arrayContaining(['MONGO_URL', 'JWT_PRIVATE_KEY', 'JWT_PUBLIC_KEY', 'NATS_PASSWORD']),
    );
    // Each database service connects as its own user, with a random password, and MongoDB makes
    // that user from the same URL.
    for (const service of DATABASE_SERVICES) {
      const url = read.find((r) => r.workload === `oasis198-${service}` && r.variable === 'MONGO_URL')?.value;
      expect(url).toMatch(
        new RegExp(
          `^mongodb://${service}:[0-9a-f]{64}@oasis198-mongodb:27017/oasis-${service}\\?authSource=oasis-${service}$`,
        ),
      );
      const made = read.find((r) => r.workload === 'oasis198-mongodb' && r.variable === service)?.value;
      expect(made).toBe(url);
    }
    for (const { workload, variable, value } of read) {
      expect([workload, variable, value]).toEqual([workload, variable, expect.any(String)]);
    }
    // Each service finds its files where its <NAME>_FILE variables say.
    for (const deployment of all(objects, 'Deployment')) {
      const variables = secretVariables(podSpec(deployment), mainContainer(deployment));
      for (const [variable, file] of Object.entries(variables)) {
        expect([deployment.metadata.name, variable, file]).toEqual([
          deployment.metadata.name,
          variable,
          expect.anything(),
        ]);
      }
    }
  });

  it.each(['dev', 'prod'])(
    '%s: every pod meets Pod Security "restricted", which its namespace enforces',
    (overlay) => {
      const objects = kustomize(overlay);
      expect(one(objects, 'Namespace').metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe(
        'restricted',
      );
      const workloads = [...all(objects, 'Deployment'), ...all(objects, 'StatefulSet')];
      expect(workloads.length).toBeGreaterThanOrEqual(SERVICES.length);
      const allowedVolumes = [
        'configMap',
        'emptyDir',
        'secret',
        'persistentVolumeClaim',
        'projected',
        'downwardAPI',
      ];
      for (const workload of workloads) {
        const pod = podSpec(workload);
        const name = workload.metadata.name;
        for (const volume of pod.volumes ?? []) {
          const types = Object.keys(volume).filter((key) => key !== 'name');
          expect([name, types.every((t) => allowedVolumes.includes(t))]).toEqual([name, true]);
        }
        expect([name, pod.hostNetwork ?? false, pod.hostPID ?? false]).toEqual([name, false, false]);
        for (const container of pod.containers) {
          const context = { ...pod.securityContext, ...container.securityContext };
          expect([name, context]).toEqual([
            name,
            expect.objectContaining({
              runAsNonRoot: true,
              allowPrivilegeEscalation: false,
              seccompProfile: { type: 'RuntimeDefault' },
              capabilities: { drop: ['ALL'] },
            }),
          ]);
          expect(context.runAsUser).not.toBe(0);
        }
      }
    },
  );

  it('prod pins the images, points at its NATS and keeps secrets out of git', () => {
    const objects = kustomize('prod');
    expect(all(objects, 'Secret')).toEqual([]);
    expect(all(objects, 'StatefulSet')).toEqual([]);
    for (const deployment of all(objects, 'Deployment')) {
      expect(mainContainer(deployment).image).toMatch(/^registry\.example\.com\/oasis198\/[\w-]+:\d/);
    }
    const natsUrls = all(objects, 'ConfigMap').flatMap((c) =>
      c.data?.['NATS_URL'] ? [c.data['NATS_URL']] : [],
    );
    expect(natsUrls).toEqual(Array(NEST_SERVICES.length).fill('nats://nats.nats.svc.cluster.local:4222'));
    const ingress = spec(one(objects, 'Ingress'));
    expect(ingress.tls?.[0]?.hosts).toEqual(['play.example.com']);
    expect(ingress.rules?.[0]?.host).toBe('play.example.com');
  });
});
