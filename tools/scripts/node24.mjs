#!/usr/bin/env node
// Runs a workspace script under Node.js 24 LTS: `node tools/scripts/node24.mjs <script> [args...]`.
// The npm scripts (start, test, setup, e2e, bench, ...) all go through it, so a machine whose own
// Node.js is older (Node 20 reached end of life in April 2026) still runs everything on 24: the
// official binary comes from the npm registry's node-linux-<arch> package into .tools/node, once,
// and is put first on the PATH, so npm, Nx, Jest and the services it starts run on it too.
// Node builtins only, and syntax Node 18 understands: this runs before anything is installed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Node.js 24 LTS release the workspace runs on. Bumping it makes the next run install it. */
const NODE_VERSION = '24.21.0';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NODE_DIR = path.join(ROOT, '.tools', 'node');
const NODE_BIN_DIR = path.join(NODE_DIR, 'bin');
const NODE_BIN = path.join(NODE_BIN_DIR, 'node');

function installedVersion() {
  if (!existsSync(NODE_BIN)) return undefined;
  const result = spawnSync(NODE_BIN, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim().replace(/^v/, '') : undefined;
}

function fail(message) {
  console.error(`\x1b[31mnode24: ${message}\x1b[0m`);
  process.exit(1);
}

/** Puts the official Node.js binary of NODE_VERSION into .tools/node/bin from the npm registry. */
function install() {
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];
  if (process.platform !== 'linux' || !arch) {
    fail(
      `Node.js ${NODE_VERSION} is needed; install it (this machine is ${process.platform}-${process.arch})`,
    );
  }
  const pkg = `node-linux-${arch}@${NODE_VERSION}`;
  console.error(`\x1b[2m  … Node.js ${NODE_VERSION}: npm pack ${pkg} into .tools/node\x1b[0m`);
  mkdirSync(path.dirname(NODE_DIR), { recursive: true });
  const work = mkdtempSync(path.join(path.dirname(NODE_DIR), '.node-'));
  try {
    // npm pack checks the tarball against the registry's integrity hash.
    const packed = spawnSync('npm', ['pack', pkg, '--pack-destination', work, '--json'], {
      cwd: work,
      encoding: 'utf8',
    });
    if (packed.status !== 0) fail(`npm pack ${pkg} failed:\n${packed.stderr}`);
    const file = JSON.parse(packed.stdout)[0].filename;
    const untar = spawnSync('tar', ['-xzf', path.join(work, file), '-C', work], { encoding: 'utf8' });
    if (untar.status !== 0) fail(`unpacking ${file} failed:\n${untar.stderr}`);
    rmSync(NODE_DIR, { recursive: true, force: true });
    renameSync(path.join(work, 'package'), NODE_DIR);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (installedVersion() !== NODE_VERSION) fail(`.tools/node/bin/node is not Node.js ${NODE_VERSION}`);
}

const [script, ...args] = process.argv.slice(2);
if (!script) fail('usage: node tools/scripts/node24.mjs <script> [args...]');
// This Node.js if it is 24 or newer, else .tools/node's, first on the PATH for what the script runs.
const env = { ...process.env };
let node = process.execPath;
if (Number(process.versions.node.split('.')[0]) < 24) {
  if (installedVersion() !== NODE_VERSION) install();
  node = NODE_BIN;
  env.PATH = `${NODE_BIN_DIR}${path.delimiter}${env.PATH ?? ''}`;
}
const child = spawn(node, [path.resolve(script), ...args], { stdio: 'inherit', env });
// Ctrl-C reaches the whole process group; the child handles it, this one waits for it.
process.on('SIGINT', () => undefined);
for (const signal of /** @type {const} */ (['SIGTERM', 'SIGHUP']))
  process.on(signal, () => child.kill(signal));
child.on('error', (error) => fail(error.message));
child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? os.constants.signals[signal] : 0)));
