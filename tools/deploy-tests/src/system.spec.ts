import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import {
  all,
  DATABASE_SERVICES,
  helmNotes,
  helmTemplate,
  type Ingress,
  inventory,
  type K8sObject,
  kustomize,
  mainContainer,
  must,
  NEST_SERVICES,
  type NetworkPolicy,
  one,
  ROOT,
  SERVICES,
  selects,
  type Workload,
} from './k8s';

/** Whether some rule of a policy lets `labels` pods through on `port` (egress: to; ingress: from). */
function allows(
  policy: NetworkPolicy,
  direction: 'ingress' | 'egress',
  labels: Record<string, string>,
  port: number | string,
) {
  const rules = policy.spec[direction] ?? [];
  return rules.some((rule) => {
    const peers =
      direction === 'egress' ? (rule as { to?: unknown[] }).to : (rule as { from?: unknown[] }).from;
    const portOk = !rule.ports || rule.ports.some((p) => p.port === port);
    const peerOk =
      !peers ||
      (peers as { podSelector?: { matchLabels?: Record<string, string> } }[]).some((peer) =>
        selects(peer.podSelector?.matchLabels, labels),
      );
    return portOk && peerOk;
  });
}

const podLabels = (objects: K8sObject[], kind: string, name: string) =>
  one<Workload>(objects, kind, name).spec.template.metadata.labels;

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
    ]) {
      expect(all(objects, kind)).toHaveLength(SERVICES.length);
    }
  });

  it('routes /api to the gateway and everything else to web, and never exposes /health or /metrics', () => {
    const ingress = one<Ingress>(objects, 'Ingress');
    const paths = ingress.spec.rules.flatMap((rule) => rule.http.paths);
    expect(
      paths.map((p) => [p.path, p.pathType, p.backend.service.name, p.backend.service.port.name]),
    ).toEqual([
      ['/api', 'Prefix', 'oasis198-gateway', 'http'],
      ['/', 'Prefix', 'oasis198-web', 'http'],
    ]);
    const services = all(objects, 'Service').map((s) => s.metadata.name);
    for (const p of paths) expect(services).toContain(p.backend.service.name);
    // The web app's /health and /metrics would be served by web (its SPA), not the gateway's.
    expect(paths.some((p) => p.path.startsWith('/health') || p.path.startsWith('/metrics'))).toBe(false);
  });

  it('keeps Server-Sent Events streams open and unbuffered behind ingress-nginx', () => {
    const annotations = one<Ingress>(objects, 'Ingress').metadata.annotations ?? {};
    expect(annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
    expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThanOrEqual(
      3600,
    );
    expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-send-timeout'])).toBeGreaterThanOrEqual(
      3600,
    );
  });

  it('serves TLS for its hosts and adds the other controllers streaming settings (ci/ingress-tls.yaml)', () => {
    const ingress = one<Ingress>(helmTemplate('oasis198', { values: ['ci/ingress-tls.yaml'] }), 'Ingress');
    expect(ingress.spec.ingressClassName).toBe('nginx');
    expect(ingress.spec.tls).toEqual([
      { secretName: 'oasis198-tls', hosts: ['play.example.com', 'www.play.example.com'] },
    ]);
    expect(ingress.spec.rules.map((r) => r.host)).toEqual(['play.example.com', 'www.play.example.com']);
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
    const policies = all<NetworkPolicy>(deps, 'NetworkPolicy');
    const policyOf = (labels: Record<string, string>) =>
      policies.find((p) => selects(p.spec.podSelector.matchLabels, labels)) as NetworkPolicy;

    it('runs NATS with JetStream and MongoDB as single-replica StatefulSets on persistent volumes', () => {
      const nats = one<Workload>(deps, 'StatefulSet', 'oasis198-nats');
      const mongodb = one<Workload>(deps, 'StatefulSet', 'oasis198-mongodb');
      for (const set of [nats, mongodb]) {
        expect(set.spec.replicas).toBe(1);
        expect(set.spec.volumeClaimTemplates).toHaveLength(1);
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
      expect(one(deps, 'ConfigMap', 'oasis198-nats').data?.['nats.conf']).toMatch(
        /jetstream \{\s+store_dir: \/data\/jetstream/,
      );
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
          `mongodb://oasis198-mongodb:27017/oasis-${service}`,
        );
      }
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
      for (const service of DATABASE_SERVICES) {
        expect(allows(policyOf(pod(service)), 'ingress', pod('gateway'), 'http')).toBe(false);
      }
      // NATS and MongoDB accept only Oasis 198 pods and call nothing.
      expect(allows(policyOf(mongodb), 'ingress', { app: 'intruder' }, 'mongodb')).toBe(false);
      expect(policyOf(nats).spec.egress).toEqual([]);
      expect(policyOf(mongodb).spec.egress).toEqual([]);
    });
  });

  it('tells the operator, after install, which Secrets to create and how to reach the game', () => {
    const notes = helmNotes();
    expect(notes).toContain(
      'kubectl -n oasis198 create secret generic oasis198-auth-jwt --from-literal=JWT_SECRET="$(openssl rand -hex 32)"',
    );
    for (const service of DATABASE_SERVICES) {
      expect(notes).toContain(`create secret generic oasis198-${service}-mongodb --from-literal=MONGO_URL=`);
    }
    expect(notes).toContain('port-forward svc/oasis198-web 8080:8080');
    // With everything in values or in the cluster there is nothing to create.
    const trying = helmNotes({ values: ['ci/in-cluster-deps.yaml'] });
    expect(trying).not.toContain('create secret');
    expect(trying).toContain('NATS (JetStream) runs in the cluster: oasis198-nats');
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

describe('the kustomize overlays', () => {
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
    const secrets = new Map(all(objects, 'Secret').map((s) => [s.metadata.name, s]));
    for (const deployment of all<Workload>(objects, 'Deployment')) {
      for (const env of mainContainer(deployment).env ?? []) {
        const ref = env.valueFrom?.secretKeyRef;
        if (!ref) continue;
        expect([deployment.metadata.name, secrets.get(ref.name)?.data?.[ref.key]]).toEqual([
          deployment.metadata.name,
          expect.any(String),
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
      const workloads = [...all<Workload>(objects, 'Deployment'), ...all<Workload>(objects, 'StatefulSet')];
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
        const pod = workload.spec.template.spec;
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
    for (const deployment of all<Workload>(objects, 'Deployment')) {
      expect(mainContainer(deployment).image).toMatch(/^registry\.example\.com\/oasis198\/[\w-]+:\d/);
    }
    const natsUrls = all(objects, 'ConfigMap').flatMap((c) =>
      c.data?.['NATS_URL'] ? [c.data['NATS_URL']] : [],
    );
    expect(natsUrls).toEqual(Array(NEST_SERVICES.length).fill('nats://nats.nats.svc.cluster.local:4222'));
    const ingress = one<Ingress>(objects, 'Ingress');
    expect(ingress.spec.tls?.[0]?.hosts).toEqual(['play.example.com']);
    expect(ingress.spec.rules[0]?.host).toBe('play.example.com');
  });
});
