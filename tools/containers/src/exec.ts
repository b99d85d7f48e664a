// Running commands, and podman with this workspace's settings. Node builtins only: these scripts
// run with Node 24's type stripping (`node tools/containers/src/<script>.ts`), no build step.
// Paths and terminal output come from the other command-line scripts' helpers (tools/scripts/lib).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { CONTAINERS_CONF, ROOT } from '../../scripts/lib/workspace.mjs';

export { bold, dim, formatDuration, green, red } from '../../scripts/lib/log.mjs';
export { CONTAINERS_CONF, ROOT };
/** Where built images' inputs (root file systems, static binaries, app artifacts) are kept. */
export const IMAGES_DIR = path.join(ROOT, '.tools', 'images');

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ExecOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Show the command's output instead of collecting it. */
  inherit?: boolean;
  /** Resolve with a non-zero code instead of rejecting. */
  allowFailure?: boolean;
}

export class CommandError extends Error {
  readonly result: Result;
  constructor(message: string, result: Result) {
    super(message);
    this.result = result;
  }
}

/** Runs a command to completion; rejects with its output when it fails (unless allowFailure). */
export function exec(command: string, args: readonly string[], options: ExecOptions = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', options.inherit ? 'inherit' : 'pipe', options.inherit ? 'inherit' : 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const result = { code: code ?? (signal ? 128 : 1), stdout, stderr };
      if (result.code === 0 || options.allowFailure) resolve(result);
      else {
        const output = (stderr || stdout).trim().split('\n').slice(-30).join('\n');
        reject(new CommandError(`${command} ${args.join(' ')} failed (${result.code})\n${output}`, result));
      }
    });
  });
}

/** Environment of every podman call: this workspace's containers.conf. */
export const podmanEnv = (): NodeJS.ProcessEnv => ({ CONTAINERS_CONF });

export function podman(args: readonly string[], options: ExecOptions = {}): Promise<Result> {
  return exec('podman', args, { ...options, env: { ...podmanEnv(), ...options.env } });
}

/** The label of an image built here that fingerprints its inputs: the same inputs, the same image. */
export const INPUTS_LABEL = 'org.oasis198.inputs';

/** A short fingerprint (16 hex digits of SHA-256) of parts joined by NUL. */
export function shortHash(...parts: Array<string | Buffer>): string {
  const hash = createHash('sha256');
  parts.forEach((part, i) => {
    if (i > 0) hash.update('\0');
    hash.update(part);
  });
  return hash.digest('hex').slice(0, 16);
}

/** The id of a local image; fails, naming how to build it, when it does not exist. */
export async function imageId(image: string): Promise<string> {
  const result = await podman(['image', 'inspect', '--format', '{{.Id}}', image], { allowFailure: true });
  if (result.code !== 0) throw new Error(`image ${image} does not exist: build it first (npm run images)`);
  return result.stdout.trim();
}

/** A label of a local image, or undefined when the image does not exist. */
export async function imageLabel(image: string, label: string): Promise<string | undefined> {
  const result = await podman(['image', 'inspect', '--format', `{{ index .Labels "${label}" }}`, image], {
    allowFailure: true,
  });
  if (result.code !== 0) return undefined;
  const value = result.stdout.trim();
  return value === '' || value === '<no value>' ? '' : value;
}
