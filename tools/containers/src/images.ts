// `npm run images`: builds every image of the system with podman, from the Dockerfiles the charts
// deploy, on bases made here (no image can be pulled): the six Node.js services and web, plus
// NATS and the FerretDB launcher for the Compose stack and the Testcontainers suites, and Mailpit
// for the Compose stack.
//
// The apps are built on the host (Nx, cached) and their artifacts prepared in dist/images/<name>/;
// the Dockerfiles take them with --build-arg ARTIFACTS=context (see their headers). Nothing
// changed means every podman step comes from its layer cache: a rebuild takes seconds.
//
// Usage: node tools/containers/src/images.ts [--only gateway,web,...] [--sizes (for docs/deploy.md)]
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { APP_UID, BASE_IMAGES, buildBaseImages } from './base-images.ts';
import {
  bold,
  buildImage,
  builtFrom,
  dim,
  exec,
  formatDuration,
  green,
  imageId,
  inspectImage,
  red,
  ROOT,
  shortHash as sha,
} from './exec.ts';
import { parseOptions } from '../../scripts/lib/log.ts';
import { NX_ENV, npmBin, TOOLS_BIN } from '../../scripts/lib/workspace.ts';

const NODE_SERVICES = ['gateway', 'auth', 'rewards', 'rooms', 'game-timer', 'tournaments'] as const;
const IMAGE_NAMES = [...NODE_SERVICES, 'web', 'nats', 'ferretdb', 'mailpit'] as const;
export type ImageName = (typeof IMAGE_NAMES)[number];

/** An image built here, tagged `local`: compose.yaml uses that tag unless OASIS_IMAGE_TAG says otherwise. */
export const imageRef = (name: ImageName): string => `localhost/oasis198/${name}:local`;

const STAGE = path.join(ROOT, 'dist', 'images');
// The Node 24 that setup put into .tools/node, or (on a machine whose own Node is 24 already, where
// setup installs none) the one running this script.
const TOOLS_NODE = path.join(ROOT, '.tools', 'node', 'bin', 'node');
const NODE_BIN = existsSync(TOOLS_NODE) ? TOOLS_NODE : process.execPath;

interface ImageSpec {
  dockerfile: string;
  args: Record<string, string>;
  /**
   * Puts what the Dockerfile's ARTIFACTS=context stage copies into dist/images/<name>/, and
   * answers a fingerprint of it: with the same Dockerfile, arguments and base image, the same
   * fingerprint means the same image, so the build is skipped (podman re-reads every file of a
   * COPY to check its layer cache: seconds per image with node_modules).
   */
  prepare: (dir: string) => Promise<string>;
}

/** dist/apps/<app>'s bundle plus its runtime packages (npm ci --omit=dev, kept while the lock is the same). */
async function prepareNodeService(app: string, dir: string): Promise<string> {
  const built = path.join(ROOT, 'dist', 'apps', app);
  const lock = readFileSync(path.join(built, 'package-lock.json'));
  const stamp = path.join(dir, '.deps-stamp');
  const key = sha(Buffer.concat([lock, ...patchFiles().map((file) => readFileSync(file))]));
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== key) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    cpSync(path.join(built, 'package.json'), path.join(dir, 'package.json'));
    cpSync(path.join(built, 'package-lock.json'), path.join(dir, 'package-lock.json'));
    // No install scripts: argon2 loads its bundled prebuild, as in the Dockerfile's deps stage.
    await exec('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir });
    rmSync(path.join(dir, 'package-lock.json'));
    // The patched packages (patches/, applied to the workspace at install), as the Dockerfile's deps stage takes them.
    for (const name of patchedPackages()) {
      const target = path.join(dir, 'node_modules', name);
      if (existsSync(target)) cpSync(path.join(ROOT, 'node_modules', name), target, { recursive: true });
    }
    writeFileSync(stamp, key + '\n');
  }
  const fingerprint = [key];
  for (const file of ['main.js', 'main.js.map', 'package.json']) {
    cpSync(path.join(built, file), path.join(dir, file));
    fingerprint.push(sha(readFileSync(path.join(dir, file))));
  }
  return fingerprint.join(':');
}

/** patch-package's patch files (patches/<name>+<version>.patch). */
function patchFiles(): string[] {
  const dir = path.join(ROOT, 'patches');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.patch'))
    .sort()
    .map((file) => path.join(dir, file));
}

/** The packages patch-package patches (a scoped name is written with '+' for '/'). */
function patchedPackages(): string[] {
  return patchFiles().map((file) =>
    path
      .basename(file)
      .replace(/\+[^+]+\.patch$/, '')
      .replace('+', '/'),
  );
}

/** A fingerprint of every file under a directory (paths, modes and contents). */
function treeFingerprint(dir: string): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const stat = statSync(path.join(dir, file));
    hash.update(`${file}\0${stat.mode}\0`);
    if (stat.isFile()) hash.update(readFileSync(path.join(dir, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

function prepareStatic(binary: string, name: string, dirs: string[]) {
  return async (dir: string): Promise<string> => {
    mkdirSync(dir, { recursive: true });
    cpSync(path.join(TOOLS_BIN, binary), path.join(dir, name), { preserveTimestamps: true });
    for (const sub of dirs) mkdirSync(path.join(dir, sub), { recursive: true });
    // A tmpfs mounted over /tmp takes the image directory's mode: world-writable, sticky.
    if (dirs.includes('tmp')) chmodSync(path.join(dir, 'tmp'), 0o1777);
    return treeFingerprint(dir);
  };
}

/** How each image is made; the Node services' (not listed) share one Dockerfile (see specOf). */
const SPECS: Partial<Record<ImageName, ImageSpec>> = {
  web: {
    dockerfile: 'apps/web/Dockerfile',
    args: { NGINX_IMAGE: BASE_IMAGES.nginx, NODE_IMAGE: BASE_IMAGES.node },
    prepare: async (dir) => {
      rmSync(dir, { recursive: true, force: true });
      // Neither source maps nor the bundle report are served.
      const served = (file: string) => !file.endsWith('.map') && path.basename(file) !== 'stats.html';
      cpSync(path.join(ROOT, 'dist', 'apps', 'web'), dir, { recursive: true, filter: served });
      // The Dockerfile copies the nginx configuration from the sources: it is an input too.
      return `${treeFingerprint(dir)}-${treeFingerprint(path.join(ROOT, 'apps', 'web', 'nginx'))}`;
    },
  },
  nats: {
    dockerfile: 'tools/docker/nats.Dockerfile',
    args: {},
    prepare: prepareStatic('nats-server', 'nats-server', ['data']),
  },
  ferretdb: {
    dockerfile: 'tools/docker/ferretdb.Dockerfile',
    args: {},
    prepare: prepareStatic('ferretdb-launcher', 'ferretdb', ['data', 'tmp']),
  },
  mailpit: {
    dockerfile: 'tools/docker/mailpit.Dockerfile',
    args: {},
    prepare: prepareStatic('mailpit', 'mailpit', ['data']),
  },
};

const specOf = (name: ImageName): ImageSpec =>
  SPECS[name] ?? {
    dockerfile: 'tools/docker/node-service.Dockerfile',
    args: { APP: name, NODE_IMAGE: BASE_IMAGES.node },
    prepare: (dir) => prepareNodeService(name, dir),
  };

/** Builds the images (all, or `only`) that are missing or out of date, saying how long each took. */
export async function buildImages(only: readonly ImageName[] = IMAGE_NAMES): Promise<void> {
  const started = Date.now();
  const base = await buildBaseImages(NODE_BIN);
  if (base.length) console.log(`${green('✓')} base images ${dim(base.join(', '))}`);

  const apps = only.filter((name) => (NODE_SERVICES as readonly string[]).includes(name) || name === 'web');
  if (apps.length) {
    // Nx builds only what changed (its cache); the same builds npm start runs.
    await exec(npmBin('nx'), ['run-many', '-t', 'build', '-p', ...apps], { env: NX_ENV });
  }
  // Every image is built on the same bases: their ids are part of each one's inputs.
  const baseIds = await Promise.all(Object.values(BASE_IMAGES).map(imageId));
  // The artifacts side by side (the services' npm ci are most of a fresh build's wait), then the
  // images one at a time.
  const preparing = Date.now();
  const prepared = await Promise.all(
    only.map(async (name) => {
      const spec = specOf(name);
      return { name, spec, fingerprint: await spec.prepare(path.join(STAGE, name)) };
    }),
  );
  console.log(dim(`artifacts prepared in ${formatDuration(Date.now() - preparing)}`));
  for (const { name, spec, fingerprint } of prepared) {
    const t0 = Date.now();
    const buildArgs = { ...spec.args, ARTIFACTS: 'context' };
    const dockerfile = readFileSync(path.join(ROOT, spec.dockerfile), 'utf8');
    const inputs = sha(fingerprint, dockerfile, JSON.stringify(buildArgs), ...baseIds);
    if (await builtFrom(imageRef(name), inputs)) {
      console.log(`${green('✓')} ${imageRef(name)} ${dim('up to date')}`);
      continue;
    }
    const args = Object.entries(buildArgs).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]);
    const labels = [`org.opencontainers.image.title=oasis198-${name}`, `org.oasis198.uid=${APP_UID}`];
    const labelArgs = labels.flatMap((label) => ['--label', label]);
    await buildImage(imageRef(name), inputs, ['-f', spec.dockerfile, ...args, ...labelArgs, '.'], ROOT);
    console.log(`${green('✓')} ${imageRef(name)} ${dim(formatDuration(Date.now() - t0))}`);
  }
  console.log(bold(`images built in ${formatDuration(Date.now() - started)}`));
}

if (import.meta.main) {
  const values = parseOptions(
    'Usage: node tools/containers/src/images.ts [--only gateway,web,...] [--sizes]',
    {
      only: { type: 'string' },
      sizes: { type: 'boolean', default: false },
    },
  ).values;
  const only = values.only?.split(',').filter(Boolean) as ImageName[] | undefined;
  const unknown = only?.filter((name) => !(IMAGE_NAMES as readonly string[]).includes(name)) ?? [];
  if (unknown.length) {
    console.error(red(`unknown image ${unknown.join(', ')}; images: ${IMAGE_NAMES.join(', ')}`));
    process.exit(2);
  }
  try {
    await buildImages(only);
    // Image sizes as podman reports them, for docs/deploy.md.
    if (values.sizes) {
      const sizes: Record<string, string> = {};
      for (const name of only ?? IMAGE_NAMES) {
        sizes[name] = `${(Number(await inspectImage(imageRef(name), '{{.Size}}')) / 1e6).toFixed(1)} MB`;
      }
      console.log(sizes);
    }
  } catch (error) {
    console.error(red((error as Error).message));
    process.exit(1);
  }
}
