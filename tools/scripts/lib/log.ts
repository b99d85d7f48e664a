// Terminal helpers shared by the command-line scripts: colours, durations, tables, options and
// steps (Node builtins only).
import { parseArgs, stripVTControlCharacters, type ParseArgsOptionsConfig } from 'node:util';

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: string) => (text: unknown) =>
  useColor ? `\u001b[${code}m${text}\u001b[0m` : String(text);

export const bold = paint('1');
export const dim = paint('2');
export const red = paint('31');
export const green = paint('32');
export const yellow = paint('33');
const cyan = paint('36');

/** A stable colour per name, for prefixing the log lines of several processes. */
export function colorFor(index: number) {
  const colors = [cyan, paint('35'), yellow, green, paint('34'), paint('91')];
  return colors[index % colors.length] ?? cyan;
}

/** "0.4 s", "12.3 s", "2 min 05 s". */
export function formatDuration(ms: number) {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** Renders rows (arrays of strings) as left-aligned columns. */
export function table(rows: string[][]) {
  // Without the colour codes paint() adds.
  const visible = (s: string) => stripVTControlCharacters(s);
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visible(cell).length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) =>
          i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visible(cell).length),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * The command line's options (node:util parseArgs, plus --help); a mistake prints `usage` and exits.
 */
export function parseOptions<const O extends ParseArgsOptionsConfig>(
  usage: string,
  options: O,
  { allowPositionals = false }: { allowPositionals?: boolean } = {},
) {
  const config = {
    options: { ...options, help: { type: 'boolean', short: 'h' } as const },
    allowPositionals,
  };
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    console.error(red(`${(error as Error).message}\n${usage}`));
    process.exit(1);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return parsed;
}

/** Why a step failed, with the output that shows it. */
export class StepError extends Error {
  output: string;
  constructor(message: string, output = '') {
    super(message);
    this.output = output;
  }
}

/** Prints a step's line: "✓ <name>  <note> (<time>)", or "already done" (not when `quiet`). */
export function printStepDone(
  name: string,
  note: string | undefined,
  startedAt: number,
  { width = 0, quiet = false } = {},
): void {
  const took = dim(`(${formatDuration(Date.now() - startedAt)})`);
  if (note !== undefined || !quiet)
    console.log(`${green('✓')} ${name.padEnd(width)}  ${note ?? dim('already done')} ${took}`);
}

/** Prints a failed step's "✗ <name>: <message>" and the end of its output. */
export function printStepFailure(name: string, caught: unknown): void {
  const error = caught as Partial<StepError>;
  console.error(`${red('✗')} ${bold(name)}: ${error.message}`);
  if (error.output) console.error(error.output.trimEnd().split('\n').slice(-80).join('\n'));
}

/**
 * Runs one step of a script and prints its line (printStepDone), the note being what `fn`
 * resolves with: undefined means nothing was needed. A failure prints printStepFailure's lines,
 * runs `cleanup`, and exits 1.
 */
export async function step(
  name: string,
  fn: () => Promise<string | undefined>,
  {
    width = 0,
    quiet = false,
    cleanup,
  }: { width?: number; quiet?: boolean; cleanup?: () => Promise<unknown> } = {},
) {
  const started = Date.now();
  try {
    const note = await fn();
    printStepDone(name, note, started, { width, quiet });
    return note;
  } catch (caught) {
    printStepFailure(name, caught);
    await cleanup?.();
    process.exit(1);
  }
}
