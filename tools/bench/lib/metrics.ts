// The services' own view of where the time goes: their Prometheus /metrics, scraped before and
// after a window. Histograms give per-subject count, mean and an upper bound of the p99 (its bucket).

type Labels = Record<string, string>;
type Histogram = { sum: number; count: number; buckets: [le: number, n: number][] };
export type Metrics = { histograms: Record<string, Histogram>; gauges: Record<string, number> };

const HISTOGRAMS: Record<string, (l: Labels) => string> = {
  oasis_http_request_duration_seconds: (l) =>
    `HTTP ${l.method} ${l.route}${l.status?.startsWith('2') ? '' : ` ${l.status}`}`,
  oasis_rpc_duration_seconds: (l) => `RPC ${l.subject}${l.outcome === 'ok' ? '' : ` (${l.outcome})`}`,
  oasis_event_handle_duration_seconds: (l) =>
    `event ${l.consumer} ${l.type}${l.outcome === 'ok' ? '' : ` (${l.outcome})`}`,
  oasis_db_command_duration_seconds: (l) => `DB ${l.command}${l.outcome === 'ok' ? '' : ` (${l.outcome})`}`,
};
const LOOP_LAG_P99 = 'nodejs_eventloop_lag_p99_seconds';

function parseLabels(text: string) {
  const labels: Labels = {};
  for (const [, key = '', value = ''] of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
  return labels;
}

/** Parses the exposition text into { histograms: { key: { sum, count, buckets: [[le, n]] } }, gauges }. */
function parseMetrics(text: string): Metrics {
  const histograms: Metrics['histograms'] = {};
  const gauges: Metrics['gauges'] = {};
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const [, name = '', labelText = '', valueText] = match;
    const value = Number(valueText);
    if (name === LOOP_LAG_P99) {
      gauges[name] = value;
      continue;
    }
    const histogram = Object.entries(HISTOGRAMS).find(([f]) => name.startsWith(f));
    if (!histogram) continue;
    const [family, describe] = histogram;
    const labels = parseLabels(labelText);
    const { le } = labels;
    delete labels.le;
    delete labels.service;
    const key = describe(labels);
    const h = (histograms[key] ??= { sum: 0, count: 0, buckets: [] });
    const suffix = name.slice(family.length);
    if (suffix === '_sum') h.sum += value;
    else if (suffix === '_count') h.count += value;
    else if (suffix === '_bucket') {
      const bound = le === '+Inf' ? Infinity : Number(le);
      const existing = h.buckets.find((b) => b[0] === bound);
      if (existing) existing[1] += value;
      else h.buckets.push([bound, value]);
    }
  }
  for (const h of Object.values(histograms)) h.buckets.sort((a, b) => a[0] - b[0]);
  return { histograms, gauges };
}

/** Every service's /metrics ({ name: baseUrl }), parsed; null for a service that did not answer. */
export async function scrapeAll(urls: Record<string, string>) {
  const scrape = async (url: string) => {
    try {
      const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
      return res.ok ? parseMetrics(await res.text()) : null;
    } catch {
      return null;
    }
  };
  return Object.fromEntries(
    await Promise.all(Object.entries(urls).map(async ([n, url]) => [n, await scrape(url)] as const)),
  );
}

/**
 * What happened between two scrapes of one service: [{ what, count, meanMs, p99LeMs, totalS }],
 * most total time first, plus its event-loop lag p99 at the end.
 */
export function diffMetrics(before: Metrics | null | undefined, after: Metrics | null | undefined) {
  if (!before || !after) return null;
  const rows = [];
  for (const [key, h] of Object.entries(after.histograms)) {
    const b = before.histograms[key] ?? { sum: 0, count: 0, buckets: [] };
    const count = h.count - b.count;
    if (count <= 0) continue;
    const sum = h.sum - b.sum;
    const deltas = h.buckets.map(
      ([le, n]) => [le, n - (b.buckets.find((x) => x[0] === le)?.[1] ?? 0)] as const,
    );
    const target = 0.99 * count;
    const p99 = deltas.find(([, n]) => n >= target)?.[0] ?? Infinity;
    rows.push({ what: key, count, meanMs: (1000 * sum) / count, p99LeMs: p99 * 1000, totalS: sum });
  }
  rows.sort((a, b) => b.totalS - a.totalS);
  return { rows, loopLagP99Ms: (after.gauges[LOOP_LAG_P99] ?? NaN) * 1000 };
}
