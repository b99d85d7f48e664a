import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1';
import { parse } from 'yaml';
import {
  all,
  DATABASE_SERVICES,
  helmNotes,
  helmTemplate,
  inventory,
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

const DIGEST = `sha256:${'fedcba9876543210'.repeat(4)}`;

describe('the oasis198 umbrella chart', () => {
  const objects = helmTemplate('oasis198');

  it('installs every service, with NATS and MongoDB outside the release by default', () => {
    expect(
      all(objects, 'Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(SERVICES.map((s) => `oasis198-${s}`).sort());
    expect(all(objects, 'StatefulSet')).toEqual([]);
    for (const kind of [
      'Service',
      'PodDisruptionBudget',
      'HorizontalPodAutoscaler',
      'NetworkPolicy',
      'ServiceAccount',
    ] as const) {
      expect(all(objects, kind)).toHaveLength(SERVICES.length);
    }
  });

  it.each(UMBRELLA_SCENARIOS.map((values) => [values.join() || 'default values', values]))(
    'gives the gateway the public key of the pair auth signs tokens with, and never the private one (%s)',
    (_, values) => {
      const rendered = helmTemplate('oasis198', { values });
      // The one Secret: auth mounts its private key, the gateway only its public key.
      const keysOf = (name: string) => {
        const workload = workloads(rendered).find((w) => w.metadata.name === name);
        if (!workload) throw new Error(`no workload ${name}`);
        const pod = podSpec(workload);
        const container = must(podContainers(pod)[0], `a container in ${name}`);
        return [...secretFiles(pod, container)]
          .filter(([file]) => /\/JWT_/.test(file))
          .map(([file, { secret, key }]) => ({ file: path.posix.basename(file), secret, key }));
      };
      const [auth] = keysOf('oasis198-auth');
      expect(auth).toMatchObject({ file: 'JWT_PRIVATE_KEY', key: 'JWT_PRIVATE_KEY' });
      expect(keysOf('oasis198-gateway')).toEqual([
        { file: 'JWT_PUBLIC_KEY', secret: auth?.secret, key: 'JWT_PUBLIC_KEY' },
      ]);
    },
  );

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
    'puts every object in the release namespace (%s)',
    (_, values) => {
      const rendered = helmTemplate('oasis198', { values, namespace: 'games' });
      expect(rendered.length).toBeGreaterThan(0);
      for (const object of rendered) {
        expect([object.kind, object.metadata.name, object.metadata.namespace]).toEqual([
          object.kind,
          object.metadata.name,
          'games',
        ]);
      }
    },
  );

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

  it('routes /api to the gateway and everything else to web, and never exposes /health or /metrics', () => {
    const rules = must(spec(one(objects, 'Ingress')).rules, 'the Ingress rules');
    const paths = rules.flatMap((rule) => must(rule.http, `the paths of ${rule.host}`).paths);
    // Every path, Service and port is among the expected values: none is missing.
    expect(
      paths.map((p) => [p.path, p.pathType, p.backend.service?.name, p.backend.service?.port?.name]),
    ).toEqual([
      ['/api', 'Prefix', 'oasis198-gateway', 'http'],
      ['/', 'Prefix', 'oasis198-web', 'http'],
    ]);
    const services = all(objects, 'Service').map((s) => s.metadata.name);
    for (const p of paths) expect(services).toContain(p.backend.service?.name);
    // The web app's /health and /metrics would be served by web (its SPA), not the gateway's.
    expect(paths.some((p) => /^\/(health|metrics)/.test(must(p.path, 'an Ingress path')))).toBe(false);
  });

  it('keeps Server-Sent Events streams open and unbuffered behind ingress-nginx', () => {
    const annotations = one(objects, 'Ingress').metadata.annotations ?? {};
    expect(annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
    expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThanOrEqual(
      3600,
    );
    expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-send-timeout'])).toBeGreaterThanOrEqual(
      3600,
    );
  });

  it('serves TLS for its hosts and adds the other controllers streaming settings (ci/ingress-tls.yaml)', () => {
    const ingress = one(helmTemplate('oasis198', { values: ['ci/ingress-tls.yaml'] }), 'Ingress');
    expect(spec(ingress).ingressClassName).toBe('nginx');
    expect(spec(ingress).tls).toEqual([
      { secretName: 'oasis198-tls', hosts: ['play.example.com', 'www.play.example.com'] },
    ]);
    expect(spec(ingress).rules?.map((r) => r.host)).toEqual(['play.example.com', 'www.play.example.com']);
    expect(ingress.metadata.annotations).toMatchObject({
      'haproxy.org/timeout-server': '7200s',
      'alb.ingress.kubernetes.io/load-balancer-attributes': 'idle_timeout.timeout_seconds=7200',
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '7200',
      // The operator's own annotations are kept.
      'cert-manager.io/cluster-issuer': 'letsencrypt',
    });
  });

  describe('with NATS and MongoDB in the cluster (ci/in-cluster-deps.yaml)', () => {
    const deps = helmTemplate('oasis198', { values: ['ci/in-cluster-deps.yaml'] });
    const policies = all(deps, 'NetworkPolicy');
    const policyOf = (labels: Record<string, string>) =>
      must(
        policies.find((p) => selects(spec(p).podSelector.matchLabels, labels)),
        `a NetworkPolicy over ${JSON.stringify(labels)}`,
      );

    it('runs NATS as a three-node JetStream cluster and MongoDB as one node, on persistent volumes', () => {
      const nats = one(deps, 'StatefulSet', 'oasis198-nats');
      const mongodb = one(deps, 'StatefulSet', 'oasis198-mongodb');
      expect(spec(nats).replicas).toBe(3);
      expect(spec(mongodb).replicas).toBe(1);
      for (const set of [nats, mongodb]) {
        expect(spec(set).volumeClaimTemplates).toHaveLength(1);
        const container = mainContainer(set);
        expect(container.securityContext).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(container.readinessProbe).toBeDefined();
        expect(container.livenessProbe).toBeDefined();
        expect(container.resources?.limits).toBeDefined();
      }
      const conf = one(deps, 'ConfigMap', 'oasis198-nats').data?.['nats.conf'] ?? '';
      expect(conf).toMatch(/jetstream \{\s+store_dir: \/data\/jetstream/);
      // Each node routes to every node by its stable name; the services keep every stream on three.
      for (const i of [0, 1, 2])
        expect(conf).toContain(`nats://oasis198-nats-${i}.oasis198-nats-headless.oasis198.svc:6222`);
      for (const service of NEST_SERVICES)
        expect(one(deps, 'ConfigMap', `oasis198-${service}`).data?.['NATS_STREAM_REPLICAS']).toBe('3');
      expect(one(deps, 'PodDisruptionBudget', 'oasis198-nats').spec).toMatchObject({ maxUnavailable: 1 });
    });

    it('gives every service its own NATS user, the passwords staying in the Secrets', () => {
      const conf = one(deps, 'ConfigMap', 'oasis198-nats').data?.['nats.conf'] ?? '';
      const users = [...conf.matchAll(/^\s*user: "([\w-]+)"$/gm)].map((m) => m[1]);
      expect(users.sort()).toEqual([...NEST_SERVICES].sort());
      expect(conf).toContain('include "../auth/passwords.conf"');
      expect(conf).not.toMatch(/ci-only/);
      const nats = podSpec(one(deps, 'StatefulSet', 'oasis198-nats'));
      const init = must(nats.initContainers?.[0], 'the passwords init container');
      const initFiles = [...secretFiles(nats, init)];
      expect(initFiles).toHaveLength(NEST_SERVICES.length);
      for (const service of NEST_SERVICES) {
        const deployment = one(deps, 'Deployment', `oasis198-${service}`);
        const own = secretVariables(podSpec(deployment), mainContainer(deployment))['NATS_PASSWORD'];
        const variable = `NATS_PASSWORD_${service.toUpperCase().replace('-', '_')}`;
        // NATS reads the very Secret and key the service reads, as a read-only file too.
        const file = initFiles.find(([f]) => path.posix.basename(f) === variable)?.[1];
        expect([variable, file]).toEqual([variable, must(own, `${service}'s NATS_PASSWORD`)]);
      }
      expect(init.env ?? []).toEqual([]);
      // The passwords live in memory only.
      expect(nats.volumes?.find((v) => v.name === 'auth')).toMatchObject({ emptyDir: { medium: 'Memory' } });
    });

    it('pins the NATS and MongoDB images by digest when given one, else by tag and says why', () => {
      for (const [name, image] of [
        ['nats', 'nats:2.14.9-alpine'],
        ['mongodb', 'mongo:8.0'],
      ] as const) {
        const set = one(deps, 'StatefulSet', `oasis198-${name}`);
        for (const c of podContainers(podSpec(set))) expect(c.image).toBe(image);
        const skip = Object.entries(set.metadata.annotations ?? {}).find(([k]) =>
          k.startsWith('checkov.io/skip'),
        );
        expect(skip?.[1]).toMatch(new RegExp(`^CKV_K8S_43=[^=]*${name}\\.image\\.digest[^=]*$`));
        const pinned = one(
          helmTemplate('oasis198', {
            values: ['ci/in-cluster-deps.yaml'],
            set: [`${name}.image.digest=${DIGEST}`],
          }),
          'StatefulSet',
          `oasis198-${name}`,
        );
        for (const c of podContainers(podSpec(pinned))) {
          expect(c.image).toBe(`${image.split(':')[0]}@${DIGEST}`);
        }
        expect(JSON.stringify(pinned.metadata.annotations ?? {})).not.toMatch(/CKV_K8S_43/);
      }
    });

    it('points every service at them', () => {
      for (const service of NEST_SERVICES) {
        expect(one(deps, 'ConfigMap', `oasis198-${service}`).data?.['NATS_URL']).toBe(
          'nats://oasis198-nats:4222',
        );
      }
      for (const service of DATABASE_SERVICES) {
        const secret = one(deps, 'Secret', `oasis198-${service}`);
        expect(Buffer.from(secret.data?.['MONGO_URL'] ?? '', 'base64').toString()).toBe(
          `mongodb://${service}:ci-only-mongodb-${service}-0123456789abcdef@oasis198-mongodb:27017/oasis-${service}?authSource=oasis-${service}`,
        );
      }
    });

    it('runs MongoDB with authentication, each service its own user from the MONGO_URL it reads', () => {
      const check = (objects: K8sObject[]) => {
        const set = one(objects, 'StatefulSet', 'oasis198-mongodb');
        expect(mainContainer(set).command).toContain('--auth');
        const pod = podSpec(set);
        const init = must(
          pod.initContainers?.find((c) => c.name === 'users'),
          'the users init container',
        );
        const files = secretFiles(pod, init);
        expect([...files.keys()].sort()).toEqual(
          DATABASE_SERVICES.map((s) => `/etc/mongodb/urls/${s}`).sort(),
        );
        for (const service of DATABASE_SERVICES) {
          const deployment = one(objects, 'Deployment', `oasis198-${service}`);
          const own = secretVariables(podSpec(deployment), mainContainer(deployment))['MONGO_URL'];
          // The very Secret and key the service reads, read-only, and never as a variable.
          expect(files.get(`/etc/mongodb/urls/${service}`)).toEqual(must(own, `${service}'s MONGO_URL`));
        }
        expect((init.env ?? []).map((e) => e.name)).toEqual(['HOME']);
        const script = one(objects, 'ConfigMap', 'oasis198-mongodb').data?.['users.js'] ?? '';
        // One role, on the user's own database: no service reads another's.
        expect([...script.matchAll(/role: '(\w+)'/g)].map((m) => m[1])).toEqual(['readWrite']);
        expect(script).toContain("{ role: 'readWrite', db: database }");
      };
      check(deps);
      // Without passwords in values, each service reads <fullname>-mongodb, and so do the users.
      const bare = helmTemplate('oasis198', {
        set: [
          'global.nats.inCluster=true',
          'global.mongodb.inCluster=true',
          'global.nats.auth.enabled=false',
        ],
      });
      check(bare);
      const init = must(podSpec(one(bare, 'StatefulSet', 'oasis198-mongodb')).initContainers?.[0], 'init');
      const urls = secretFiles(podSpec(one(bare, 'StatefulSet', 'oasis198-mongodb')), init);
      expect(urls.get('/etc/mongodb/urls/rooms')?.secret).toBe('oasis198-rooms-mongodb');
    });

    it('lets exactly the right pods through the NetworkPolicies', () => {
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
  });

  it('tells the operator, after install, which Secrets to create and how to reach the game', () => {
    const notes = helmNotes();
    expect(notes).toContain(
      'kubectl -n oasis198 create secret generic oasis198-auth-jwt --from-file=JWT_PRIVATE_KEY=jwt-key.pem --from-file=JWT_PUBLIC_KEY=jwt-public-key.pem',
    );
    for (const service of DATABASE_SERVICES) {
      expect(notes).toContain(`create secret generic oasis198-${service}-mongodb --from-literal=MONGO_URL=`);
    }
    for (const service of NEST_SERVICES) {
      expect(notes).toContain(
        `create secret generic oasis198-${service}-nats --from-literal=NATS_PASSWORD="$(openssl rand -hex 32)"`,
      );
    }
    expect(notes).toContain('helm/oasis198/files/nats-permissions.json');
    expect(notes).toContain('port-forward svc/oasis198-web 8080:8080');
    // With everything in values or in the cluster there is nothing to create.
    const trying = helmNotes({ values: ['ci/in-cluster-deps.yaml'] });
    expect(trying).not.toContain('create secret');
    expect(trying).toContain('NATS (JetStream) runs in the cluster: oasis198-nats');
    // The in-cluster MongoDB without passwords in values: each service's URL names its user.
    const bare = helmNotes({ set: ['global.mongodb.inCluster=true'] });
    expect(bare).toContain(
      "create secret generic oasis198-rooms-mongodb --from-literal=MONGO_URL='mongodb://rooms:<password>@oasis198-mongodb:27017/oasis-rooms?authSource=oasis-rooms'",
    );
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
    expect(inventory(all(objects, 'StatefulSet'))).toEqual([
      'StatefulSet/oasis198-mongodb',
      'StatefulSet/oasis198-nats',
    ]);
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
