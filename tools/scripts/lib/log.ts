// Terminal helpers shared by the command-line scripts: colours, durations, tables, options and
// steps (Node builtins only).
import { parseArgs, stripVTControlCharacters, styleText, type ParseArgsOptionsConfig } from 'node:util';

/** Colours only where stdout is a terminal and NO_COLOR is unset (styleText checks both). */
const paint = (format: Parameters<typeof styleText>[0]) => (text: unknown) => styleText(format, String(text));

export const bold = paint('bold');
export const dim = paint('dim');
export const red = paint('red');
export const green = paint('green');
export const yellow = paint('yellow');

/** A stable colour per name, for prefixing the log lines of several processes. */
export const colorFor = (index: number) =>
  paint((['cyan', 'magenta', 'yellow', 'green', 'blue', 'redBright'] as const)[index % 6] ?? 'cyan');

/** "0.4 s", "12.3 s", "2 min 05 s". */
export function formatDuration(ms: number) {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** Renders rows (arrays of strings) as left-aligned columns (colour codes take no width). */
export function table(rows: string[][]) {
  const width = (cell = '') => stripVTControlCharacters(cell).length;
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((row) => width(row[i]))));
  const pad = (cell: string, i: number, row: string[]) =>
    i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell));
  return rows.map((row) => row.map(pad).join('  ').trimEnd()).join('\n');
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
  { cleanup, ...line }: { width?: number; quiet?: boolean; cleanup?: () => Promise<unknown> } = {},
) {
  const started = Date.now();
  try {
    const note = await fn();
    printStepDone(name, note, started, line);
    return note;
  } catch (caught) {
    printStepFailure(name, caught);
    await cleanup?.();
    process.exit(1);
  }
}
