// Running commands, and podman with this workspace's settings, through the command-line scripts'
// helpers (tools/scripts/lib: processes, paths, terminal output). Node builtins only: these
// scripts run with Node 24's type stripping (`node tools/containers/src/<script>.ts`), no build step.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { run } from '../../scripts/lib/proc.ts';
import { CONTAINERS_CONF, ROOT } from '../../scripts/lib/workspace.ts';

export { bold, dim, formatDuration, green, red } from '../../scripts/lib/log.ts';
export { CONTAINERS_CONF, ROOT };
/** Where built images' inputs (root file systems, static binaries, app artifacts) are kept. */
export const IMAGES_DIR = path.join(ROOT, '.tools', 'images');

export interface ExecOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Show the command's output instead of collecting it. */
  inherit?: boolean;
  /** Resolve with a non-zero code instead of rejecting. */
  allowFailure?: boolean;
}

/**
 * Runs a command to completion: its code, its stdout, and `output`, stdout and stderr as they came.
 * Rejects with its last lines of output when it fails (unless allowFailure).
 */
export async function exec(
  command: string,
  args: readonly string[],
  { inherit = false, allowFailure = false, ...options }: ExecOptions = {},
) {
  const result = await run(command, args, { ...options, capture: !inherit });
  if (result.code === 0 || allowFailure) return result;
  const output = result.output.trim().split('\n').slice(-30).join('\n');
  throw new Error(`${command} ${args.join(' ')} failed (${result.code})\n${output}`);
}

/** podman with this workspace's containers.conf. */
export function podman(args: readonly string[], options: ExecOptions = {}) {
  return exec('podman', args, { ...options, env: { CONTAINERS_CONF, ...options.env } });
}

/** A short fingerprint (16 hex digits of SHA-256) of parts joined by NUL. */
export function shortHash(...parts: Array<string | Buffer>): string {
  const hash = createHash('sha256');
  for (const [i, part] of parts.entries()) hash.update(i > 0 ? '\0' : '').update(part);
  return hash.digest('hex').slice(0, 16);
}

/** A field of a local image (`podman image inspect --format`); undefined when there is no such image. */
export async function inspectImage(image: string, format: string): Promise<string | undefined> {
  const result = await podman(['image', 'inspect', '--format', format, image], { allowFailure: true });
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** The id of a local image; fails, naming how to build it, when it does not exist. */
export async function imageId(image: string): Promise<string> {
  const id = await inspectImage(image, '{{.Id}}');
  if (id === undefined) throw new Error(`image ${image} does not exist: build it first (npm run images)`);
  return id;
}

/** The label of an image built here that fingerprints its inputs: the same inputs, the same image. */
const INPUTS_LABEL = 'org.oasis198.inputs';

/** Whether a local image exists and was built from these inputs. */
export async function builtFrom(image: string, inputs: string): Promise<boolean> {
  return (await inspectImage(image, `{{ index .Labels "${INPUTS_LABEL}" }}`)) === inputs;
}

/** `podman build` of `image`, labelled with its inputs (see builtFrom). */
export async function buildImage(image: string, inputs: string, args: string[], cwd?: string): Promise<void> {
  await podman(['build', '--quiet', '--label', `${INPUTS_LABEL}=${inputs}`, '-t', image, ...args], { cwd });
}
