// Figures: percentiles and the per-step recorder of moves, round trips and errors.

/** Count, p50/p95/p99 (nearest rank) and max of numbers; null figures for none. */
export function summarize(values: number[]) {
  const sorted = values.toSorted((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? null;
  return { count: sorted.length, p50: at(50), p95: at(95), p99: at(99), max: at(100) };
}

/** Rounds to `digits` decimals; null, undefined, NaN and Infinity stay as they are. */
export const round = (value: number | null | undefined, digits = 1) =>
  Number.isFinite(value) ? Math.round((value as number) * 10 ** digits) / 10 ** digits : value;

/** A ladder step's measurement window, from open(); close() adds its length in seconds. */
const newWindow = () => ({
  startedAt: performance.now(),
  rtt: [] as number[],
  patch: [] as number[],
  moves: 0,
  optionMoves: 0,
  randomMoves: 0,
  games: 0,
});

/**
 * What one ladder step counts. Errors count from the start of the step (its ramp-up included);
 * moves and round trips only inside the measurement window (open() .. close()).
 */
export class Recorder {
  /** Errors by kind. */
  errors = new Map<string, number>();
  /** An example of each kind. */
  examples = new Map<string, string>();
  window: ReturnType<typeof newWindow> | null = null;

  /** Starts counting errors for a new step. */
  resetErrors() {
    this.errors.clear();
    this.examples.clear();
  }

  error(kind: string, detail?: unknown) {
    this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
    if (!this.examples.has(kind) && detail) this.examples.set(kind, String(detail).slice(0, 300));
  }

  get errorCount() {
    return [...this.errors.values()].reduce((sum, count) => sum + count, 0);
  }

  open() {
    this.window = newWindow();
  }

  close() {
    const w = this.window;
    if (!w) throw new Error('close() without open()');
    this.window = null;
    return Object.assign(w, { seconds: (performance.now() - w.startedAt) / 1000 });
  }

  move({ option, number, patchMs }: { option: string; number: number | 'random'; patchMs: number }) {
    const w = this.window;
    if (!w) return;
    w.moves++;
    if (option !== 'plain') w.optionMoves++;
    if (number === 'random') w.randomMoves++;
    w.patch.push(patchMs);
  }

  roundTrip(ms: number) {
    this.window?.rtt.push(ms);
  }

  gameFinished() {
    if (this.window) this.window.games++;
  }
}
