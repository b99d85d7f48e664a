// A hostPath provisioner for the one-node cluster of `npm run stack:k8s` (no dependencies: it runs
// on the Node.js base image). Every 2 s it gives each pending claim of a StorageClass naming this
// provisioner a PersistentVolume on a directory of its own under VOLUMES_DIR, bound to that claim,
// and deletes the directory and the volume of a released claim.
import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const API = `https://${process.env.KUBERNETES_SERVICE_HOST}:${process.env.KUBERNETES_SERVICE_PORT}`;
const TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';
const { VOLUMES_DIR, PROVISIONER } = process.env;

async function api(method, url, body) {
  // The token is rotated: read it for every request.
  const token = (await readFile(TOKEN, 'utf8')).trim();
  const response = await fetch(API + url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  if (!response.ok && response.status !== 404 && response.status !== 409) {
    throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  }
  return response.status === 404 ? undefined : response.json();
}

async function ourClasses() {
  const classes = await api('GET', '/apis/storage.k8s.io/v1/storageclasses');
  return new Set(classes.items.filter((c) => c.provisioner === PROVISIONER).map((c) => c.metadata.name));
}

async function provision(claim) {
  const { namespace, name, uid } = claim.metadata;
  const dir = path.join(VOLUMES_DIR, `${namespace}-${name}-${uid.slice(0, 8)}`);
  await mkdir(dir, { recursive: true });
  // Writable by the pod's user, whichever it is.
  await chmod(dir, 0o777);
  await api('POST', '/api/v1/persistentvolumes', {
    metadata: { name: `pvc-${uid}`, annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER } },
    spec: {
      capacity: { storage: claim.spec.resources.requests.storage },
      accessModes: claim.spec.accessModes,
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: claim.spec.storageClassName,
      claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name, uid },
      hostPath: { path: dir, type: 'Directory' },
    },
  });
  console.log(`provisioned ${dir} for ${namespace}/${name}`);
}

async function reclaim(volume) {
  const dir = volume.spec.hostPath?.path;
  if (dir && path.dirname(dir) === VOLUMES_DIR) await rm(dir, { recursive: true, force: true });
  await api('DELETE', `/api/v1/persistentvolumes/${volume.metadata.name}`);
  console.log(`deleted ${volume.metadata.name} (${dir})`);
}

async function pass() {
  const classes = await ourClasses();
  const claims = await api('GET', '/api/v1/persistentvolumeclaims');
  for (const claim of claims.items) {
    const pending = claim.status?.phase === 'Pending' && !claim.spec.volumeName;
    if (pending && classes.has(claim.spec.storageClassName)) await provision(claim);
  }
  const volumes = await api('GET', '/api/v1/persistentvolumes');
  for (const volume of volumes.items) {
    const ours = volume.metadata.annotations?.['pv.kubernetes.io/provisioned-by'] === PROVISIONER;
    if (ours && volume.status?.phase === 'Released') await reclaim(volume);
  }
}

for (;;) {
  await pass().catch((error) => console.error(error.message));
  await sleep(2000);
}
