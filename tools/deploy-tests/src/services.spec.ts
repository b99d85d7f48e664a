import {
  all,
  DATABASE_SERVICES,
  helmTemplate,
  helmTemplateError,
  type Hpa,
  type K8sObject,
  mainContainer,
  type NetworkPolicy,
  type Pdb,
  type PeerSelector,
  type PodSpec,
  one,
  type Probe,
  quantity,
  type Service,
  SERVICES,
  type ServiceName,
  selects,
  type Workload,
} from './k8s';

/** Each service chart on its own, default values, release oasis198. */
function render(service: ServiceName, values: string[] = []) {
  const objects = helmTemplate(service, { values });
  const deployment = one<Workload>(objects, 'Deployment');
  const pod: PodSpec = deployment.spec.template.spec;
  const container = mainContainer(deployment);
  return { objects, deployment, pod, container, podLabels: deployment.spec.template.metadata.labels };
}

const HEALTH: Record<ServiceName, { startup: string; readiness: string; liveness: string }> = {
  gateway: { startup: '/health/live', readiness: '/health/ready', liveness: '/health/live' },
  auth: { startup: '/health/live', readiness: '/health/ready', liveness: '/health/live' },
  rewards: { startup: '/health/live', readiness: '/health/ready', liveness: '/health/live' },
  rooms: { startup: '/health/live', readiness: '/health/ready', liveness: '/health/live' },
  'game-timer': { startup: '/health/live', readiness: '/health/ready', liveness: '/health/live' },
  web: { startup: '/healthz', readiness: '/healthz', liveness: '/healthz' },
};

/**
 * What each service may talk to, and who may talk to it. Ingress sources: the ingress controller
 * (global.networkPolicy.ingressController), the web pods (which proxy /api), Prometheus.
 * Egress: DNS, NATS, MongoDB, the gateway.
 */
const NEEDS: Record<ServiceName, { ingress: string[]; egress: string[] }> = {
  gateway: { ingress: ['ingress-controller', 'web', 'prometheus'], egress: ['dns', 'nats'] },
  auth: { ingress: ['prometheus'], egress: ['dns', 'nats', 'mongodb'] },
  rewards: { ingress: ['prometheus'], egress: ['dns', 'nats', 'mongodb'] },
  rooms: { ingress: ['prometheus'], egress: ['dns', 'nats', 'mongodb'] },
  'game-timer': { ingress: ['prometheus'], egress: ['dns', 'nats', 'mongodb'] },
  web: { ingress: ['ingress-controller'], egress: ['dns', 'gateway'] },
};

/** Names a NetworkPolicy peer after what it selects, with the default global.networkPolicy. */
function peerName(peer: PeerSelector): string {
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
};

describe.each(SERVICES)('the %s chart', (service) => {
  const { objects, deployment, pod, container, podLabels } = render(service);

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
    expect(deployment.spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });
    const sleep = container.lifecycle?.preStop?.exec?.command;
    expect(sleep?.[0]).toBe('sleep');
    const sleepSeconds = Number(sleep?.[1]);
    expect(sleepSeconds).toBeGreaterThanOrEqual(3);
    const config = one(objects, 'ConfigMap').data ?? {};
    const shutdownSeconds = Number(config['SHUTDOWN_GRACE_MS'] ?? 0) / 1000;
    // The sleep, then the graceful shutdown, with room to spare before SIGKILL.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(sleepSeconds + shutdownSeconds + 10);
  });

  it('has a Service on the pods http port', () => {
    const svc = one<Service>(objects, 'Service');
    expect(selects(svc.spec.selector, podLabels)).toBe(true);
    expect(svc.spec.ports).toEqual([expect.objectContaining({ name: 'http', targetPort: 'http' })]);
  });

  it('has a PodDisruptionBudget over its pods that lets one pod go at a time', () => {
    const pdb = one<Pdb>(objects, 'PodDisruptionBudget');
    expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(selects(pdb.spec.selector.matchLabels, podLabels)).toBe(true);
    expect(pdb.spec.maxUnavailable).toBe(1);
  });

  it('scales with a HorizontalPodAutoscaler on CPU, which owns the replica count', () => {
    const hpa = one<Hpa>(objects, 'HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    expect(hpa.spec.metrics).toEqual([
      expect.objectContaining({
        resource: { name: 'cpu', target: expect.objectContaining({ type: 'Utilization' }) },
      }),
    ]);
    // A fixed replica count would fight the autoscaler on every upgrade.
    expect(deployment.spec.replicas).toBeUndefined();
  });

  it('runs a fixed replica count and no autoscaler with autoscaling off (ci/hpa-off.yaml)', () => {
    const off = render(service, ['ci/hpa-off.yaml']);
    expect(all(off.objects, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(off.deployment.spec.replicas).toBe(3);
    expect(one<Pdb>(off.objects, 'PodDisruptionBudget').spec).toMatchObject({ minAvailable: 2 });
  });

  it('has its own ServiceAccount and mounts no API token', () => {
    const account = one(objects, 'ServiceAccount') as K8sObject & { automountServiceAccountToken?: boolean };
    expect(pod.serviceAccountName).toBe(account.metadata.name);
    expect(account.automountServiceAccountToken).toBe(false);
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  it('denies all traffic but what the service needs (NetworkPolicy)', () => {
    const policy = one<NetworkPolicy>(objects, 'NetworkPolicy');
    expect(selects(policy.spec.podSelector.matchLabels, podLabels)).toBe(true);
    expect(policy.spec.podSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);

    const ingress = policy.spec.ingress ?? [];
    for (const rule of ingress) {
      // Every rule names its sources and opens only the http port.
      expect(rule.from?.length).toBeGreaterThan(0);
      expect(rule.ports).toEqual([{ port: 'http', protocol: 'TCP' }]);
    }
    expect(ingress.flatMap((rule) => (rule.from ?? []).map(peerName)).sort()).toEqual(
      [...NEEDS[service].ingress].sort(),
    );

    const egress = policy.spec.egress ?? [];
    const allowed = egress.flatMap((rule) => {
      // No rule without ports or destinations: nothing is open to the world.
      expect(rule.ports?.length).toBeGreaterThan(0);
      expect(rule.to?.length).toBeGreaterThan(0);
      const ports = (rule.ports ?? []).map((p) => `${p.port}/${p.protocol}`);
      return (rule.to ?? []).map((peer) => {
        const name = peerName(peer);
        expect(ports).toEqual(PORTS[name]);
        return name;
      });
    });
    expect(allowed.sort()).toEqual([...NEEDS[service].egress].sort());
  });

  it('reads its secrets from Secrets, never from its ConfigMap', () => {
    const config = one(objects, 'ConfigMap').data ?? {};
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e]));
    expect(Object.keys(config)).not.toEqual(expect.arrayContaining(['MONGO_URL']));
    expect(Object.keys(config)).not.toEqual(expect.arrayContaining(['JWT_SECRET']));
    const ownsDatabase = (DATABASE_SERVICES as readonly string[]).includes(service);
    if (ownsDatabase) {
      expect(env['MONGO_URL']?.valueFrom?.secretKeyRef).toEqual({
        name: `oasis198-${service}-mongodb`,
        key: 'MONGO_URL',
      });
    } else {
      expect(env['MONGO_URL']).toBeUndefined();
    }
    if (service === 'auth') {
      expect(env['JWT_SECRET']?.valueFrom?.secretKeyRef).toEqual({
        name: 'oasis198-auth-jwt',
        key: 'JWT_SECRET',
      });
    } else {
      expect(env['JWT_SECRET']).toBeUndefined();
    }
    // With existing Secrets (the default) the chart writes none.
    expect(all(objects, 'Secret')).toEqual([]);
  });

  if (service !== 'web') {
    it('gets HTTP_PORT and NATS_URL from its ConfigMap and exposes /metrics to Prometheus', () => {
      const config = one(objects, 'ConfigMap');
      expect(container.envFrom).toEqual([{ configMapRef: { name: config.metadata.name } }]);
      expect(config.data).toMatchObject({ HTTP_PORT: '8080', NATS_URL: 'nats://nats:4222' });
      expect(deployment.spec.template.metadata.annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '8080',
        'prometheus.io/path': '/metrics',
      });
      // A changed ConfigMap rolls the pods.
      expect(deployment.spec.template.metadata.annotations?.['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
    });
  }
});

describe.each(DATABASE_SERVICES)('the %s chart with secrets', (service) => {
  it('writes its own Secret from values and rolls the pods when it changes (ci/secrets-from-values.yaml)', () => {
    const { objects, container, deployment } = render(service, ['ci/secrets-from-values.yaml']);
    const secret = one(objects, 'Secret');
    const data = secret.data ?? {};
    const mongoUrl = Buffer.from(data['MONGO_URL'] ?? '', 'base64').toString();
    expect(mongoUrl).toBe(
      `mongodb://oasis:change-me@mongodb-0.mongodb.databases.svc:27017/oasis-${service}?authSource=admin`,
    );
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.valueFrom?.secretKeyRef]));
    expect(env['MONGO_URL']).toEqual({ name: secret.metadata.name, key: 'MONGO_URL' });
    if (service === 'auth')
      expect(env['JWT_SECRET']).toEqual({ name: secret.metadata.name, key: 'JWT_SECRET' });
    expect(deployment.spec.template.metadata.annotations?.['checksum/secret']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads named existing Secrets and keys (ci/existing-secrets.yaml)', () => {
    const { objects, container } = render(service, ['ci/existing-secrets.yaml']);
    expect(all(objects, 'Secret')).toEqual([]);
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.valueFrom?.secretKeyRef]));
    expect(env['MONGO_URL']).toEqual({ name: 'oasis198-db', key: 'connection-string' });
    expect(env['NATS_URL']).toEqual({ name: 'oasis198-nats', key: 'url' });
    expect(one(objects, 'ConfigMap').data?.['NATS_URL']).toBeUndefined();
    if (service === 'auth') expect(env['JWT_SECRET']).toEqual({ name: 'oasis198-jwt', key: 'signing-key' });
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
    ['auth', ['jwt.value=too-short'], /jwt\/value/],
    ['auth', ['securityContext.runAsNonRoot=false'], /runAsNonRoot/],
    ['rooms', ['securityContext.allowPrivilegeEscalation=true'], /allowPrivilegeEscalation/],
    ['rooms', ['resources.limits=null'], /limits/],
    ['gateway', ['replicas=3'], /additional properties 'replicas' not allowed/],
    ['gateway', ['global.nats.url=http://nats:4222'], /global\/nats\/url/],
    ['rewards', ['config.MONGO_URL=mongodb://x/y'], /config.MONGO_URL is managed by the chart/],
    ['web', ['autoscaling.minReplicas=5', 'autoscaling.maxReplicas=2'], /minReplicas must not be greater/],
  ])('%s with %s', (chart, set, message) => {
    expect(helmTemplateError(chart, { set })).toMatch(message);
  });
});
