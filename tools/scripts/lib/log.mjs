// Small terminal-output helpers shared by the command-line scripts (Node builtins only).

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (text) => (useColor ? `\u001b[${code}m${text}\u001b[0m` : String(text));

export const bold = paint('1');
export const dim = paint('2');
export const red = paint('31');
export const green = paint('32');
export const yellow = paint('33');
export const cyan = paint('36');

/** A stable colour per name, for prefixing the log lines of several processes. */
export function colorFor(index) {
  return [cyan, paint('35'), yellow, green, paint('34'), paint('91')][index % 6];
}

/** "0.4 s", "12.3 s", "2 min 05 s". */
export function formatDuration(ms) {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** Renders rows (arrays of strings) as left-aligned columns. */
export function table(rows) {
  // eslint-disable-next-line no-control-regex -- strips the colour codes paint() adds
  const visible = (s) => String(s).replace(/\u001b\[[0-9;]*m/g, '');
  const widths = [];
  for (const row of rows)
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visible(cell).length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i] - visible(cell).length)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
