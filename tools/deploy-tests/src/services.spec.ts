import { createPublicKey } from 'node:crypto';
import { contentSecurityPolicy } from '@oasis198/contracts';
import type { PodSpec, Probe } from 'kubernetes-types/core/v1';
import type { NetworkPolicyPeer } from 'kubernetes-types/networking/v1';
import {
  all,
  DATABASE_SERVICES,
  helmTemplate,
  helmTemplateError,
  type K8sObject,
  mainContainer,
  must,
  one,
  podContainers,
  podMetadata,
  podSpec,
  quantity,
  secretVariables,
  SERVICES,
  type ServiceName,
  selects,
  spec,
} from './k8s';

/** Each service chart on its own, default values, release oasis198. */
function render(service: ServiceName, values: string[] = [], set: string[] = []) {
  const objects = helmTemplate(service, { values, set });
  const deployment = one(objects, 'Deployment');
  const pod = podSpec(deployment);
  const container = mainContainer(deployment);
  const secrets = secretVariables(pod, container);
  return {
    objects,
    deployment,
    pod,
    container,
    secrets,
    podLabels: podMetadata(deployment).labels,
  };
}

/** The user the service's image runs as (tools/docker/node-service.Dockerfile, apps/web/Dockerfile). */
const IMAGE_UID: Record<ServiceName, number> = {
  gateway: 10001,
  auth: 10001,
  rewards: 10001,
  rooms: 10001,
  'game-timer': 10001,
  tournaments: 10001,
  web: 10101,
};

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

/** Environment variables read straight from a Secret (valueFrom.secretKeyRef, envFrom secretRef). */
function secretEnv(pod: PodSpec): string[] {
  return podContainers(pod).flatMap((c) => [
    ...(c.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => `${c.name}: ${e.name}`),
    ...(c.envFrom ?? []).filter((e) => e.secretRef).map((e) => `${c.name}: envFrom ${e.secretRef?.name}`),
  ]);
}

const HEALTH: Record<ServiceName, { startup: string; readiness: string; liveness: string }> = {
  gateway: { startup: '/health/live', readiness: '/health/ready', liveness: '/health/live' },
  auth: { startup: '/health/live', readiness: '/health/ready', liveness: '/health/live' },
  rewards: { startup: '/health/live', readiness: '/health/ready', liveness: '/health/live' },
  rooms: { startup: '/health/live', readiness: '/health/ready', liveness: '/health/live' },
  'game-timer': { startup: '/health/live', readiness: '/health/ready', liveness: '/health/live' },
  tournaments: { startup: '/health/live', readiness: '/health/ready', liveness: '/health/live' },
  web: { startup: '/healthz', readiness: '/healthz', liveness: '/healthz' },
};

/**
 * What each service may talk to, and who may talk to it. Ingress sources: the ingress controller
 * (global.networkPolicy.ingressController), the web pods (which proxy /api), Prometheus.
 * Egress: DNS, NATS, MongoDB, the gateway, and auth's SMTP relay.
 */
const NEEDS: Record<ServiceName, { ingress: string[]; egress: string[] }> = {
  gateway: { ingress: ['ingress-controller', 'web', 'prometheus'], egress: ['dns', 'nats'] },
  auth: { ingress: ['prometheus'], egress: ['dns', 'nats', 'mongodb', 'smtp'] },
  rewards: { ingress: ['prometheus'], egress: ['dns', 'nats', 'mongodb'] },
  rooms: { ingress: ['prometheus'], egress: ['dns', 'nats', 'mongodb'] },
  'game-timer': { ingress: ['prometheus'], egress: ['dns', 'nats'] },
  tournaments: { ingress: ['prometheus'], egress: ['dns', 'nats', 'mongodb'] },
  web: { ingress: ['ingress-controller'], egress: ['dns', 'gateway'] },
};

/** Names a NetworkPolicy peer after what it selects, with the default global.networkPolicy. */
function peerName(peer: NetworkPolicyPeer): string {
  const ns = peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
  const app = peer.podSelector?.matchLabels?.['app.kubernetes.io/name'];
  if (ns === 'ingress-nginx' && !peer.podSelector) return 'ingress-controller';
  if (ns === 'monitoring' && app === 'prometheus') return 'prometheus';
  if (ns === 'kube-system' && peer.podSelector?.matchLabels?.['k8s-app'] === 'kube-dns') return 'dns';
  if (peer.namespaceSelector && !ns && app === 'nats') return 'nats';
  if (peer.namespaceSelector && !ns && app === 'mongodb') return 'mongodb';
  if (!peer.namespaceSelector && (app === 'web' || app === 'gateway')) return app;
  return `unexpected peer ${JSON.stringify(peer)}`;
}

const PORTS: Record<string, (string | number)[]> = {
  dns: ['53/UDP', '53/TCP'],
  nats: ['4222/TCP'],
  mongodb: ['27017/TCP'],
  gateway: ['8080/TCP'],
  smtp: ['587/TCP', '465/TCP', '25/TCP'],
};

describe.each(SERVICES)('the %s chart', (service) => {
  const { objects, deployment, pod, container, secrets, podLabels } = render(service);

  it('probes the health endpoints: startup, readiness and liveness', () => {
    const expected = HEALTH[service];
    expect(container.ports).toEqual([expect.objectContaining({ name: 'http', containerPort: 8080 })]);
    for (const [probe, path] of [
      [container.startupProbe, expected.startup],
      [container.readinessProbe, expected.readiness],
      [container.livenessProbe, expected.liveness],
    ] as const) {
      expect(probe?.httpGet).toEqual({ path, port: 'http' });
      expect(probe?.periodSeconds).toBeGreaterThan(0);
      expect(probe?.timeoutSeconds).toBeGreaterThan(0);
      expect(probe?.failureThreshold).toBeGreaterThan(0);
    }
    // A slow start (NATS, MongoDB still connecting) is not mistaken for a hung process...
    const budget = (probe: Probe | undefined) => (probe?.periodSeconds ?? 0) * (probe?.failureThreshold ?? 0);
    const startupBudget = budget(container.startupProbe);
    expect(startupBudget).toBeGreaterThanOrEqual(service === 'web' ? 20 : 60);
    // ...and a broken pod leaves the Service within seconds.
    const readinessBudget = budget(container.readinessProbe);
    expect(readinessBudget).toBeGreaterThan(0);
    expect(readinessBudget).toBeLessThanOrEqual(15);
  });

  it('runs as non-root, read-only, without capabilities or privilege escalation, seccomp RuntimeDefault', () => {
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext?.privileged).not.toBe(true);
    expect(container.securityContext?.capabilities?.add).toBeUndefined();
    expect(pod.hostNetwork).not.toBe(true);
    expect(pod.hostPID).not.toBe(true);
    // The only writable path is /tmp, an emptyDir.
    const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
    expect(pod.volumes?.find((v) => v.name === tmp?.name)?.emptyDir).toBeDefined();
  });

  it('sets explicit CPU and memory requests and limits', () => {
    const { requests, limits } = container.resources ?? {};
    for (const resource of ['cpu', 'memory']) {
      expect(quantity(requests?.[resource])).toBeGreaterThan(0);
      expect(quantity(limits?.[resource])).toBeGreaterThanOrEqual(quantity(requests?.[resource]));
    }
  });

  it('rolls out without losing capacity and drains before it stops', () => {
    expect(spec(deployment).strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });
    // The kubelet's sleep: the images (a Node.js or nginx binary on a bare base) have no sleep command.
    expect(container.lifecycle?.preStop?.exec).toBeUndefined();
    const sleepSeconds = Number(container.lifecycle?.preStop?.sleep?.seconds);
    expect(sleepSeconds).toBeGreaterThanOrEqual(3);
    const config = one(objects, 'ConfigMap').data ?? {};
    const shutdownSeconds = Number(config['SHUTDOWN_GRACE_MS'] ?? 0) / 1000;
    // The sleep, then the graceful shutdown, with room to spare before SIGKILL.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(sleepSeconds + shutdownSeconds + 10);
  });

  it('has a Service on the pods http port', () => {
    const svc = spec(one(objects, 'Service'));
    expect(selects(must(svc.selector, 'the Service selector'), podLabels)).toBe(true);
    expect(svc.ports).toEqual([expect.objectContaining({ name: 'http', targetPort: 'http' })]);
  });

  it('has a PodDisruptionBudget over its pods that lets one pod go at a time', () => {
    const pdb = spec(one(objects, 'PodDisruptionBudget'));
    const selector = must(pdb.selector?.matchLabels, 'the PodDisruptionBudget selector');
    expect(selector).toEqual(spec(deployment).selector.matchLabels);
    expect(selects(selector, podLabels)).toBe(true);
    expect(pdb.maxUnavailable).toBe(1);
  });

  it('scales with a HorizontalPodAutoscaler on CPU, which owns the replica count', () => {
    const hpa = spec(one(objects, 'HorizontalPodAutoscaler'));
    expect(hpa.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    const minReplicas = must(hpa.minReplicas, 'minReplicas');
    expect(minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.maxReplicas).toBeGreaterThan(minReplicas);
    expect(hpa.metrics).toEqual([
      expect.objectContaining({
        resource: { name: 'cpu', target: expect.objectContaining({ type: 'Utilization' }) },
      }),
    ]);
    // A fixed replica count would fight the autoscaler on every upgrade.
    expect(spec(deployment).replicas).toBeUndefined();
  });

  it('runs a fixed replica count and no autoscaler with autoscaling off (ci/hpa-off.yaml)', () => {
    const off = render(service, ['ci/hpa-off.yaml']);
    expect(all(off.objects, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(spec(off.deployment).replicas).toBe(3);
    expect(spec(one(off.objects, 'PodDisruptionBudget'))).toMatchObject({ minAvailable: 2 });
  });

  it('has its own ServiceAccount and mounts no API token', () => {
    const account = one(objects, 'ServiceAccount');
    expect(pod.serviceAccountName).toBe(account.metadata.name);
    expect(account.automountServiceAccountToken).toBe(false);
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  it('denies all traffic but what the service needs (NetworkPolicy)', () => {
    const policy = spec(one(objects, 'NetworkPolicy'));
    const selector = must(policy.podSelector.matchLabels, 'the NetworkPolicy pod selector');
    expect(selects(selector, podLabels)).toBe(true);
    expect(selector).toEqual(spec(deployment).selector.matchLabels);
    expect(policy.policyTypes).toEqual(['Ingress', 'Egress']);

    const ingress = policy.ingress ?? [];
    for (const rule of ingress) {
      // Every rule names its sources and opens only the http port.
      expect(rule.from?.length).toBeGreaterThan(0);
      expect(rule.ports).toEqual([{ port: 'http', protocol: 'TCP' }]);
    }
    expect(ingress.flatMap((rule) => (rule.from ?? []).map(peerName)).sort()).toEqual(
      [...NEEDS[service].ingress].sort(),
    );

    const egress = policy.egress ?? [];
    const allowed = egress.flatMap((rule) => {
      // No rule without ports, and none without destinations but the SMTP relay's ports: its
      // address is the operator's (auth.networkPolicy.extraEgress narrows it, docs/deploy.md).
      expect(rule.ports?.length).toBeGreaterThan(0);
      const ports = (rule.ports ?? []).map((p) => `${p.port}/${p.protocol}`);
      if (!rule.to?.length) {
        expect(ports).toEqual(PORTS['smtp']);
        return ['smtp'];
      }
      return rule.to.map((peer) => {
        const name = peerName(peer);
        expect(ports).toEqual(PORTS[name]);
        return name;
      });
    });
    expect(allowed.sort()).toEqual([...NEEDS[service].egress].sort());
  });

  it('reads its secrets as read-only files from Secrets, never from its ConfigMap or the environment', () => {
    const config = one(objects, 'ConfigMap').data ?? {};
    expect(Object.keys(config)).not.toEqual(expect.arrayContaining(['MONGO_URL']));
    expect(Object.keys(config)).not.toEqual(expect.arrayContaining(['JWT_PRIVATE_KEY']));
    expect(Object.keys(config)).not.toEqual(expect.arrayContaining(['JWT_PUBLIC_KEY']));
    const names = (container.env ?? []).map((e) => e.name);
    for (const name of ['MONGO_URL', 'JWT_PRIVATE_KEY', 'JWT_PUBLIC_KEY', 'NATS_PASSWORD', 'NATS_URL'])
      expect(names).not.toContain(name);
    // No variable takes its value from a Secret: `kubectl describe`, `ps e` and crash dumps show none.
    expect(secretEnv(pod)).toEqual([]);
    const ownsDatabase = (DATABASE_SERVICES as readonly string[]).includes(service);
    const file = (secret: string, key: string) => ({ secret, key, readOnly: true });
    expect(secrets).toEqual({
      ...(ownsDatabase && { MONGO_URL: file(`oasis198-${service}-mongodb`, 'MONGO_URL') }),
      // auth signs tokens with the private key; every gateway verifies them itself with the public key.
      ...(service === 'auth' && { JWT_PRIVATE_KEY: file('oasis198-auth-jwt', 'JWT_PRIVATE_KEY') }),
      ...(service === 'gateway' && { JWT_PUBLIC_KEY: file('oasis198-gateway-jwt', 'JWT_PUBLIC_KEY') }),
      ...(service !== 'web' && { NATS_PASSWORD: file(`oasis198-${service}-nats`, 'NATS_PASSWORD') }),
      // auth sends mail through the relay SMTP_URL names, with its user and password.
      ...(service === 'auth' && { SMTP_URL: file('oasis198-auth-smtp', 'SMTP_URL') }),
    });
    // With existing Secrets (the default) the chart writes none.
    expect(all(objects, 'Secret')).toEqual([]);
    if (service === 'auth') {
      // Without a relay (smtp.enabled=false) auth mounts no SMTP Secret, which then need not exist.
      const noMail = render(service, [], ['smtp.enabled=false']);
      expect(Object.keys(noMail.secrets)).not.toContain('SMTP_URL');
    }
  });

  it('puts every object in the release namespace', () => {
    const objects = helmTemplate(service, { namespace: 'games', values: ['ci/hpa-off.yaml'] });
    expect(objects.length).toBeGreaterThan(0);
    for (const object of [...objects, ...helmTemplate(service, { namespace: 'games' })]) {
      expect([object.kind, object.metadata.name, object.metadata.namespace]).toEqual([
        object.kind,
        object.metadata.name,
        'games',
      ]);
    }
  });

  it("runs as its image's user, a UID of 10000 or more that no host account has", () => {
    const uid = IMAGE_UID[service];
    expect(uid).toBeGreaterThanOrEqual(10000);
    expect(pod.securityContext).toMatchObject({ runAsUser: uid, runAsGroup: uid, fsGroup: uid });
    for (const c of podContainers(pod)) {
      expect([c.name, c.securityContext?.runAsUser, c.securityContext?.runAsGroup]).toEqual([
        c.name,
        uid,
        uid,
      ]);
    }
  });

  it('pulls its image on every start by default (a tag can move), as configured otherwise', () => {
    expect(container.imagePullPolicy).toBe('Always');
    const global = render(service, [], ['global.image.pullPolicy=IfNotPresent']).container;
    expect(global.imagePullPolicy).toBe('IfNotPresent');
    const own = render(
      service,
      [],
      ['global.image.pullPolicy=IfNotPresent', 'image.pullPolicy=Never'],
    ).container;
    expect(own.imagePullPolicy).toBe('Never');
  });

  it('pins its image by image.digest, which wins over the tag', () => {
    expect(container.image).toBe(`oasis198/${service}:0.1.0`);
    const pinned = render(
      service,
      [],
      ['global.image.registry=registry.example.com', 'image.tag=9.9.9', `image.digest=${DIGEST}`],
    );
    expect(pinned.container.image).toBe(`registry.example.com/oasis198/${service}@${DIGEST}`);
    // Pinned, the scanner's digest check has nothing to skip.
    expect(Object.values(pinned.deployment.metadata.annotations ?? {}).join()).not.toMatch(/CKV_K8S_43/);
  });

  it('says why the digest check is skipped while no digest is set (checkov annotation)', () => {
    const skips = Object.entries(deployment.metadata.annotations ?? {}).filter(([k]) =>
      k.startsWith('checkov.io/skip'),
    );
    expect(skips).toEqual([
      [expect.any(String), expect.stringMatching(/^CKV_K8S_43=[^=]*image\.digest[^=]*$/)],
    ]);
  });

  if (service !== 'web') {
    it('connects to NATS as its own user, the password a file from its Secret', () => {
      const config = one(objects, 'ConfigMap').data ?? {};
      expect(config['NATS_USER']).toBe(service);
      expect(config['NATS_PASSWORD']).toBeUndefined();
      expect(secrets['NATS_PASSWORD']).toEqual({
        secret: `oasis198-${service}-nats`,
        key: 'NATS_PASSWORD',
        readOnly: true,
      });
    });

    it('connects without credentials when global.nats.auth is off', () => {
      const off = render(service, [], ['global.nats.auth.enabled=false']);
      expect(one(off.objects, 'ConfigMap').data?.['NATS_USER']).toBeUndefined();
      expect(Object.keys(off.secrets)).not.toContain('NATS_PASSWORD');
      expect((off.container.env ?? []).map((e) => e.name)).not.toContain('NATS_PASSWORD');
    });
  } else {
    it('has no NATS credentials (it does not talk to NATS)', () => {
      expect(one(objects, 'ConfigMap').data?.['NATS_USER']).toBeUndefined();
      expect((container.env ?? []).map((e) => e.name)).not.toContain('NATS_PASSWORD');
      expect(secrets).toEqual({});
      expect(pod.volumes?.some((v) => v.secret || v.projected)).toBe(false);
    });
  }

  if (service !== 'web') {
    it('gets HTTP_PORT and NATS_URL from its ConfigMap and exposes /metrics to Prometheus', () => {
      const config = one(objects, 'ConfigMap');
      expect(container.envFrom).toEqual([{ configMapRef: { name: config.metadata.name } }]);
      expect(config.data).toMatchObject({ HTTP_PORT: '8080', NATS_URL: 'nats://nats:4222' });
      expect(podMetadata(deployment).annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '8080',
        'prometheus.io/path': '/metrics',
      });
      // A changed ConfigMap rolls the pods.
      expect(podMetadata(deployment).annotations?.['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
    });
  }
});

describe.each(DATABASE_SERVICES)('the %s chart with secrets', (service) => {
  it('writes its own Secret from values and rolls the pods when it changes (ci/secrets-from-values.yaml)', () => {
    const { objects, secrets, deployment, pod } = render(service, ['ci/secrets-from-values.yaml']);
    const secret = one(objects, 'Secret', `oasis198-${service}`);
    const data = secret.data ?? {};
    const mongoUrl = Buffer.from(data['MONGO_URL'] ?? '', 'base64').toString();
    expect(mongoUrl).toBe(
      `mongodb://oasis:change-me@mongodb-0.mongodb.databases.svc:27017/oasis-${service}?authSource=admin`,
    );
    const own = (key: string) => ({ secret: secret.metadata.name, key, readOnly: true });
    expect(secrets['MONGO_URL']).toEqual(own('MONGO_URL'));
    if (service === 'auth') {
      // The keys go to the Secret an operator would create, <fullname>-jwt, where the gateway reads
      // the public one.
      const jwt = one(objects, 'Secret', 'oasis198-auth-jwt');
      expect(secrets['JWT_PRIVATE_KEY']).toEqual({
        secret: jwt.metadata.name,
        key: 'JWT_PRIVATE_KEY',
        readOnly: true,
      });
      const keyOf = (key: string) => Buffer.from(jwt.data?.[key] ?? '', 'base64').toString();
      expect(keyOf('JWT_PRIVATE_KEY')).toMatch(
        /^-----BEGIN PRIVATE KEY-----\n[\s\S]+-----END PRIVATE KEY-----\n$/,
      );
      expect(createPublicKey(keyOf('JWT_PRIVATE_KEY')).export({ type: 'spki', format: 'pem' })).toBe(
        keyOf('JWT_PUBLIC_KEY'),
      );
    }
    expect(secrets['NATS_PASSWORD']).toEqual(own('NATS_PASSWORD'));
    expect(secretEnv(pod)).toEqual([]);
    expect(Buffer.from(data['NATS_PASSWORD'] ?? '', 'base64').toString()).toBe(
      `ci-only-nats-${service}-0123456789abcdef`,
    );
    expect(podMetadata(deployment).annotations?.['checksum/secret']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads named existing Secrets and keys (ci/existing-secrets.yaml)', () => {
    const { objects, secrets, pod } = render(service, ['ci/existing-secrets.yaml']);
    expect(all(objects, 'Secret')).toEqual([]);
    const file = (secret: string, key: string) => ({ secret, key, readOnly: true });
    expect(secrets['MONGO_URL']).toEqual(file('oasis198-db', 'connection-string'));
    expect(secrets['NATS_URL']).toEqual(file('oasis198-nats', 'url'));
    expect(one(objects, 'ConfigMap').data?.['NATS_URL']).toBeUndefined();
    expect(secrets['NATS_PASSWORD']).toEqual(file(`oasis198-nats-${service}`, 'password'));
    if (service === 'auth') expect(secrets['JWT_PRIVATE_KEY']).toEqual(file('oasis198-jwt', 'signing-key'));
    expect(secretEnv(pod)).toEqual([]);
  });

  it('builds each database URL from a shared global URL (ci/global-mongodb-url.yaml)', () => {
    const { objects } = render(service, ['ci/global-mongodb-url.yaml']);
    const url = Buffer.from(one(objects, 'Secret').data?.['MONGO_URL'] ?? '', 'base64').toString();
    expect(url).toBe(
      `mongodb+srv://oasis:change-me@mongo.example.internal/oasis-${service}?retryWrites=true`,
    );
  });
});

describe('values the charts refuse', () => {
  it.each([
    ['auth', ['jwt.value=not-a-pem-key'], /jwt\/value/],
    ['auth', ['securityContext.runAsNonRoot=false'], /runAsNonRoot/],
    ['rooms', ['securityContext.allowPrivilegeEscalation=true'], /allowPrivilegeEscalation/],
    ['rooms', ['resources.limits=null'], /limits/],
    ['gateway', ['replicas=3'], /additional properties 'replicas' not allowed/],
    ['gateway', ['global.nats.url=http://nats:4222'], /global\/nats\/url/],
    ['rewards', ['config.MONGO_URL=mongodb://x/y'], /config.MONGO_URL is managed by the chart/],
    ['web', ['autoscaling.minReplicas=5', 'autoscaling.maxReplicas=2'], /minReplicas must not be greater/],
    ['rooms', ['config.NATS_PASSWORD=x'], /config.NATS_PASSWORD is managed by the chart/],
    ['rooms', ['config.NATS_USER=gateway'], /config.NATS_USER is managed by the chart/],
    ['web', ["contentSecurityPolicy.imgSrc[0]='unsafe-inline'"], /contentSecurityPolicy\/imgSrc\/0/],
    ['web', ['contentSecurityPolicy.connectSrc[0]=https://a.example; script-src *'], /connectSrc\/0/],
    ['gateway', ['config.TRUST_PROXY=true'], /TRUST_PROXY must be a hop count/],
    ['rooms', ['image.digest=sha256:0123'], /image\/digest/],
    ['web', ['image.digest=latest'], /image\/digest/],
    ['auth', ['config.JWT_PRIVATE_KEY_FILE=/tmp/x'], /config.JWT_PRIVATE_KEY_FILE is managed by the chart/],
    ['gateway', ['config.JWT_PUBLIC_KEY=x'], /config.JWT_PUBLIC_KEY is managed by the chart/],
    ['rooms', ['config.MONGO_URL_FILE=/tmp/x'], /config.MONGO_URL_FILE is managed by the chart/],
    // The Secret files are readable by the pod's group only.
    ['auth', ['podSecurityContext.fsGroup=null'], /fsGroup/],
    // Pod Security "restricted" and a read-only root filesystem, as docs/deploy.md promises.
    ['rooms', ['securityContext.readOnlyRootFilesystem=false'], /readOnlyRootFilesystem/],
    ['gateway', ['securityContext.capabilities.add={NET_ADMIN}'], /capabilities\/add/],
    ['auth', ['securityContext.capabilities.drop=null'], /drop/],
    ['web', ['podSecurityContext.seccompProfile=null'], /seccompProfile/],
    ['rewards', ['securityContext.seccompProfile.type=Unconfined'], /seccompProfile\/type/],
    // Settings that would break a rollout or a node drain.
    ['rooms', ['preStopSleepSeconds=40'], /preStopSleepSeconds \(40\) must be below/],
    ['game-timer', ['pdb.minAvailable=2'], /no node could ever be drained/],
  ])('%s with %s', (chart, set, message) => {
    expect(helmTemplateError(chart, { set })).toMatch(message);
  });
});

describe('the gateway chart behind the ingress', () => {
  it('trusts X-Forwarded-For from the ingress hop only, not from every private address', () => {
    const config = one(helmTemplate('gateway'), 'ConfigMap').data ?? {};
    expect(config['TRUST_PROXY']).toBe('1');
  });

  it("takes the ingress controller's addresses instead", () => {
    const objects = helmTemplate('gateway', { set: ['config.TRUST_PROXY=10.42.0.0/16'] });
    expect(one(objects, 'ConfigMap').data?.['TRUST_PROXY']).toBe('10.42.0.0/16');
  });
});

describe('the web chart: Content-Security-Policy', () => {
  const cspOf = (objects: K8sObject[]) => {
    const deployment = one(objects, 'Deployment');
    const pod = podSpec(deployment);
    const container = mainContainer(deployment);
    const mount = container.volumeMounts?.find((m) => m.mountPath === '/etc/nginx/oasis-csp.conf');
    const volume = pod.volumes?.find((v) => v.name === mount?.name);
    const config = one(objects, 'ConfigMap');
    expect(volume?.configMap?.name).toBe(config.metadata.name);
    const snippet = must(config.data?.[must(mount?.subPath, 'the CSP mount')], 'the CSP snippet');
    const match = /^add_header Content-Security-Policy "([^"]+)" always;$/m.exec(snippet);
    return must(match?.[1], `a Content-Security-Policy header in ${snippet}`);
  };

  it("serves the site's own policy by default: nothing from elsewhere", () => {
    expect(cspOf(helmTemplate('web'))).toBe(contentSecurityPolicy());
  });

  it("adds the GIF service's origins to img-src and connect-src only", () => {
    const objects = helmTemplate('web', {
      set: [
        'contentSecurityPolicy.connectSrc[0]=https://api.gifs.example',
        'contentSecurityPolicy.imgSrc[0]=https://media.gifs.example',
        'contentSecurityPolicy.imgSrc[1]=https://*.cdn.gifs.example',
      ],
    });
    expect(cspOf(objects)).toBe(
      contentSecurityPolicy({
        connectSrc: ['https://api.gifs.example'],
        imgSrc: ['https://media.gifs.example', 'https://*.cdn.gifs.example'],
      }),
    );
  });
});
