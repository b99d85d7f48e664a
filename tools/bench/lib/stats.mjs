// Figures: percentiles and the per-step recorder of moves, round trips and errors.
import { performance } from 'node:perf_hooks';

/** The p-th percentile (nearest rank) of numbers; null for none. */
export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = values.sorted ?? [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function summarize(values) {
  const sorted = [...values].sort((a, b) => a - b);
  sorted.sorted = sorted;
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : null,
  };
}

export const round = (value, digits = 1) =>
  value === null || value === undefined || !Number.isFinite(value)
    ? value
    : Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * What one ladder step counts. Errors count from the start of the step (its ramp-up included);
 * moves and round trips only inside the measurement window (open() .. close()).
 */
export class Recorder {
  constructor() {
    this.errors = new Map();
    this.examples = new Map();
    this.window = null;
    this.closedWindow = null;
  }

  /** Starts counting errors for a new step. */
  resetErrors() {
    this.errors.clear();
    this.examples.clear();
  }

  error(kind, detail) {
    this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
    if (!this.examples.has(kind) && detail) this.examples.set(kind, String(detail).slice(0, 300));
  }

  get errorCount() {
    let n = 0;
    for (const count of this.errors.values()) n += count;
    return n;
  }

  open() {
    this.window = {
      startedAt: performance.now(),
      rtt: [],
      patch: [],
      moves: 0,
      optionMoves: 0,
      randomMoves: 0,
      games: 0,
    };
  }

  close() {
    const w = this.window;
    this.window = null;
    w.seconds = (performance.now() - w.startedAt) / 1000;
    this.closedWindow = w;
    return w;
  }

  move({ option, number, patchMs }) {
    const w = this.window;
    if (!w) return;
    w.moves++;
    if (option !== 'plain') w.optionMoves++;
    if (number === 'random') w.randomMoves++;
    w.patch.push(patchMs);
  }

  roundTrip(ms) {
    this.window?.rtt.push(ms);
  }

  gameFinished() {
    if (this.window) this.window.games++;
  }
}
