// Where things live in the workspace, and the versions of the tools the scripts install.
// Node builtins only: setup.ts imports this before node_modules exists.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Binaries built or installed by setup.ts (git-ignored). */
export const TOOLS_BIN = path.join(ROOT, '.tools', 'bin');
/** Persistent local data: NATS JetStream store, FerretDB databases, the local JWT secret. */
export const DATA_DIR = path.join(ROOT, '.data');
/** Runtime state of `npm run infra` / `npm start`: infra.json and logs. */
export const RUN_DIR = path.join(ROOT, '.run');

/** A package's command in node_modules/.bin. */
export const npmBin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);
/** No Nx daemon, no cloud, plain output: every run is self-contained and readable in CI logs. */
export const NX_ENV = { NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' };

/** Podman settings of this workspace: the runc runtime and explicit ulimits (see the file). */
export const CONTAINERS_CONF = path.join(ROOT, 'tools', 'containers', 'containers.conf');

/** Pinned tool versions. Bumping one makes the next `npm run setup` reinstall it. */
export const NATS_SERVER_VERSION = 'v2.14.9';
/** The local SMTP server with a web inbox that auth's mail goes to (npm start, e2e, integration). */
export const MAILPIT_VERSION = 'v1.33.1';
export const HELM_VERSION = 'v3.22.0';
/**
 * Docker Compose, which runs compose.yaml against podman's Docker API (.run/podman.sock). v5.7.x
 * needs modules (github.com/docker/secrets-engine) the module proxy does not serve here.
 */
export const DOCKER_COMPOSE_VERSION = 'v5.6.0';
/** The chart checks' kubeconform, and the Kubernetes release whose API schemas it validates with. */
export const KUBECONFORM_VERSION = 'v0.7.0';
/** The charts' unit-test runner (helm/<chart>/tests/*_test.yaml), a helm plugin built with Go. */
export const HELM_UNITTEST_VERSION = 'v1.1.2';
export const KUBERNETES_VERSION = 'v1.34.4';
/** The one-node cluster of `npm run stack:k8s` (tools/k8s): etcd and CoreDNS beside KUBERNETES_VERSION. */
export const ETCD_VERSION = 'v3.6.16';
export const COREDNS_VERSION = 'v1.12.4';
/**
 * The cluster's NetworkPolicy engine: kube-router's firewall alone (iptables and ipset), the one
 * enforcing engine this host's kernel and the module proxy allow (docs/adr/0028).
 */
export const KUBE_ROUTER_VERSION = 'v2.1.0';
export const K8S_SCHEMAS_DIR = path.join(ROOT, '.tools', 'k8s-schemas');
/** Python tools from PyPI, each in a virtualenv of its own: .tools/<name>-venv/bin/<name>. */
export const venvOf = (name: string) => path.join(ROOT, '.tools', `${name}-venv`);
/**
 * Every package of a Python tool's venv at an exact version, the tool's own included (checkov, the
 * chart scanner of the deployment checks; schemathesis, the API fuzzer of the fuzzing stage).
 */
export const pythonToolList = (name: string) => path.join(ROOT, 'tools', 'python', `${name}.txt`);
export const SCHEMATHESIS_BIN = path.join(venvOf('schemathesis'), 'bin', 'schemathesis');

export const NATS_SERVER_BIN = path.join(TOOLS_BIN, 'nats-server');
export const FERRETDB_BIN = path.join(TOOLS_BIN, 'ferretdb-launcher');
export const MAILPIT_BIN = path.join(TOOLS_BIN, 'mailpit');
export const HELM_BIN = path.join(TOOLS_BIN, 'helm');
export const DOCKER_COMPOSE_BIN = path.join(TOOLS_BIN, 'docker-compose');
export const KUBECONFORM_BIN = path.join(TOOLS_BIN, 'kubeconform');
/** The workspace's own helm plugins (HELM_PLUGINS): `helm unittest`, never the user's. */
export const HELM_PLUGINS_DIR = path.join(ROOT, '.tools', 'helm-plugins');
export const HELM_UNITTEST_BIN = path.join(HELM_PLUGINS_DIR, 'unittest', 'untt');

/** A file's text, or undefined when it cannot be read (e.g. it does not exist). */
export function readIfExists(file: string) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
