// Base images made here, since no image can be pulled on this machine: distroless-style file
// systems assembled from Debian packages (debootstrap) with only what the program needs. The
// production Dockerfiles build FROM the official images; local builds pass these instead
// (--build-arg NODE_IMAGE=... / NGINX_IMAGE=... / GO_RUNTIME_IMAGE=...).
//
//   oasis198/node     glibc, libstdc++, CA certificates, time zones, passwd/group and Node.js 24
//                     (the binary of .tools/node, the same one the tests run on);
//   oasis198/nginx    Debian's nginx-light with the libraries it links, and busybox's wget for
//                     the image's health check.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { buildImage, builtFrom, exec, IMAGES_DIR, shortHash as hash } from './exec.ts';

const SUITE = 'bookworm';
/** Packages the root file system is made of (beyond minbase), the source of every base image. */
const PACKAGES = ['ca-certificates', 'tzdata', 'nginx-light', 'busybox-static'];
/** Bump to rebuild the base images after changing how they are assembled. */
const LAYOUT_VERSION = '1';
/** The unprivileged user every image runs as (a UID of 10000 or more keeps clear of host users). */
export const APP_UID = 10001;

export const BASE_IMAGES = {
  node: 'localhost/oasis198/node:24-bookworm',
  nginx: 'localhost/oasis198/nginx:1.22-bookworm',
} as const;

const ROOTFS = path.join(IMAGES_DIR, `rootfs-${SUITE}`);
const ROOTFS_STAMP = path.join(IMAGES_DIR, `rootfs-${SUITE}.stamp`);

/** The Debian mirror this machine's apt uses (deb822 sources or sources.list), for debootstrap. */
function debianMirror(): string {
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    // "URIs: <mirror>" (deb822) or "deb [options] <mirror> <suite>"
    const mirror = /^(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s+)?)(\S+\/debian)\/?(?:\s*$|\s+\S)/m.exec(text)?.[1];
    if (mirror) return mirror;
  }
  throw new Error(
    'no Debian mirror found in /etc/apt/sources.list(.d): the base images come from Debian packages',
  );
}

/** A Debian minbase root file system with PACKAGES, made once (about 30 s) and kept. */
async function rootfs(): Promise<string> {
  const key = hash(SUITE, ...PACKAGES);
  if (existsSync(ROOTFS_STAMP) && readFileSync(ROOTFS_STAMP, 'utf8').trim() === key) return key;
  if (process.getuid?.() !== 0) throw new Error('debootstrap needs root to make the base images');
  console.log(`  … debootstrap --variant=minbase ${SUITE} (${PACKAGES.join(', ')})`);
  rmSync(ROOTFS, { recursive: true, force: true });
  mkdirSync(IMAGES_DIR, { recursive: true });
  const include = `--include=${PACKAGES.join(',')}`;
  await exec('debootstrap', ['--variant=minbase', include, SUITE, ROOTFS, debianMirror()]);
  writeFileSync(ROOTFS_STAMP, key + '\n');
  return key;
}

/** The shared libraries a binary of the root file system loads, as absolute paths inside it. */
async function librariesOf(binary: string): Promise<string[]> {
  const { stdout, code } = await exec('chroot', [ROOTFS, 'ldd', binary], { allowFailure: true });
  if (code !== 0 && /not a dynamic executable/.test(stdout)) return [];
  return [...stdout.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1] as string);
}

/** Copies a path of the root file system into a tree, following symlinks (each link is kept). */
function copyIn(tree: string, file: string): void {
  const source = path.join(ROOTFS, file);
  const target = path.join(tree, file);
  if (lstatSync(target, { throwIfNoEntry: false })) return; // there already, or a link (even dangling)
  mkdirSync(path.dirname(target), { recursive: true });
  const stat = lstatSync(source);
  if (stat.isSymbolicLink()) {
    const link = readlinkSync(source);
    symlinkSync(link, target);
    copyIn(tree, path.resolve(path.dirname(file), link));
  } else if (stat.isDirectory()) {
    mkdirSync(target, { recursive: true });
    for (const entry of readdirSync(source).sort()) copyIn(tree, path.join(file, entry));
  } else {
    copyFileSync(source, target);
    chmodSync(target, stat.mode & 0o7777);
  }
}

/** What every base image holds: the merged-/usr layout, users, certificates, time zones, /tmp. */
function baseTree(tree: string): void {
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(tree, { recursive: true });
  for (const link of ['bin', 'sbin', 'lib', 'lib64']) {
    if (lstatSync(path.join(ROOTFS, link), { throwIfNoEntry: false })?.isSymbolicLink())
      copyIn(tree, `/${link}`);
  }
  for (const file of [
    '/etc/ssl/certs/ca-certificates.crt',
    '/usr/share/zoneinfo',
    '/etc/os-release',
    '/etc/nsswitch.conf',
  ]) {
    copyIn(tree, file);
  }
  writeFileSync(
    path.join(tree, 'etc/passwd'),
    `root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n` +
      `app:x:${APP_UID}:${APP_UID}:app:/home/app:/sbin/nologin\n`,
  );
  writeFileSync(path.join(tree, 'etc/group'), `root:x:0:\nnogroup:x:65534:\napp:x:${APP_UID}:\n`);
  mkdirSync(path.join(tree, 'tmp'));
  chmodSync(path.join(tree, 'tmp'), 0o1777);
  mkdirSync(path.join(tree, 'home/app'), { recursive: true });
}

async function addBinary(tree: string, binary: string): Promise<void> {
  copyIn(tree, binary);
  for (const library of await librariesOf(binary)) copyIn(tree, library);
}

/** Builds the base images (see the top of this file) that are missing or out of date; returns those it built. */
export async function buildBaseImages(nodeBinary: string): Promise<string[]> {
  const rootfsKey = await rootfs();
  /**
   * A FROM-scratch image of a base tree (.tools/images/<name>-base) that `fill` completes, unless
   * it was built from the same inputs (the root file system, LAYOUT_VERSION, the name, `version`).
   */
  const baseImage = async (
    name: keyof typeof BASE_IMAGES,
    version: string[],
    comment: string,
    fill: (tree: string) => Promise<void>,
  ): Promise<string[]> => {
    const inputs = hash(rootfsKey, LAYOUT_VERSION, name, ...version);
    if (await builtFrom(BASE_IMAGES[name], inputs)) return [];
    const tree = path.join(IMAGES_DIR, `${name}-base`);
    baseTree(tree);
    await fill(tree);
    const containerfile = `${tree}.Containerfile`;
    writeFileSync(
      containerfile,
      `# ${comment} on Debian ${SUITE}, distroless-style\nFROM scratch\nCOPY . /\n`,
    );
    await buildImage(BASE_IMAGES[name], inputs, ['-f', containerfile, tree]);
    return [BASE_IMAGES[name]];
  };
  const nodeVersion = (await exec(nodeBinary, ['--version'])).stdout.trim();
  const node = await baseImage('node', [nodeVersion], `Node.js ${nodeVersion}`, async (tree) => {
    // ldd runs inside the root file system, so the binary goes there first.
    mkdirSync(path.join(ROOTFS, 'usr/local/bin'), { recursive: true });
    copyFileSync(nodeBinary, path.join(ROOTFS, 'usr/local/bin/node'));
    chmodSync(path.join(ROOTFS, 'usr/local/bin/node'), 0o755);
    await addBinary(tree, '/usr/local/bin/node');
  });
  const nginx = await baseImage('nginx', [], 'nginx-light', async (tree) => {
    await addBinary(tree, '/usr/sbin/nginx');
    copyIn(tree, '/etc/nginx/mime.types');
    copyIn(tree, '/bin/busybox');
    symlinkSync('busybox', path.join(tree, 'usr/bin/wget'));
    // nginx opens its compiled-in error log before reading nginx.conf; point it at stderr.
    mkdirSync(path.join(tree, 'var/log/nginx'), { recursive: true });
    symlinkSync('/dev/stderr', path.join(tree, 'var/log/nginx/error.log'));
    mkdirSync(path.join(tree, 'var/lib/nginx'), { recursive: true });
  });
  return [...node, ...nginx];
}
