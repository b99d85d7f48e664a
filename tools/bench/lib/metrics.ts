// The services' own view of where the time goes: their Prometheus /metrics, scraped before and
// after a window. Histograms give per-subject count, mean and an upper bound of the p99 (its bucket).

type Labels = Record<string, string>;
type Histogram = { sum: number; count: number; buckets: Map<number, number> };
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
/** prom-client's default process metrics: a service's own CPU (user + system) and resident memory. */
const PROCESS_CPU = 'process_cpu_seconds_total';
const PROCESS_RSS = 'process_resident_memory_bytes';

/** The samples of an exposition text: [{ name, labels, value }], one per line that is not a comment. */
export function samples(text: string) {
  return text.split('\n').flatMap((line) => {
    const [, name = '', labelText = '', value] = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line) ?? [];
    const labels = [...labelText.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, v]) => [key, v]);
    return name ? [{ name, labels: Object.fromEntries(labels) as Labels, value: Number(value) }] : [];
  });
}

/** The smallest bucket bound (le) that holds `share` of a histogram's `count` observations. */
export const bucketBound = (buckets: Map<number, number>, count: number, share: number) =>
  [...buckets.keys()].sort((x, y) => x - y).find((le) => (buckets.get(le) ?? 0) >= share * count) ?? Infinity;

/** Parses the exposition text into { histograms: { key: { sum, count, buckets: le -> n } }, gauges }. */
function parseMetrics(text: string): Metrics {
  const histograms: Metrics['histograms'] = {};
  const gauges: Metrics['gauges'] = {};
  for (const { name, labels, value } of samples(text)) {
    if (name === LOOP_LAG_P99 || name === PROCESS_CPU || name === PROCESS_RSS) gauges[name] = value;
    const family = Object.keys(HISTOGRAMS).find((f) => name.startsWith(f));
    if (!family) continue;
    const { le, service: _service, ...rest } = labels;
    const h = (histograms[HISTOGRAMS[family]?.(rest) ?? ''] ??= { sum: 0, count: 0, buckets: new Map() });
    const suffix = name.slice(family.length);
    if (suffix === '_sum') h.sum += value;
    else if (suffix === '_count') h.count += value;
    else if (suffix === '_bucket') {
      const bound = le === '+Inf' ? Infinity : Number(le);
      h.buckets.set(bound, (h.buckets.get(bound) ?? 0) + value);
    }
  }
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
    const b = before.histograms[key];
    const count = h.count - (b?.count ?? 0);
    if (count <= 0) continue;
    const sum = h.sum - (b?.sum ?? 0);
    // The window's own buckets, and the bound that holds 99 % of its observations.
    const window = new Map([...h.buckets].map(([le, n]) => [le, n - (b?.buckets.get(le) ?? 0)]));
    const p99 = bucketBound(window, count, 0.99);
    rows.push({ what: key, count, meanMs: (1000 * sum) / count, p99LeMs: p99 * 1000, totalS: sum });
  }
  rows.sort((a, b) => b.totalS - a.totalS);
  return { rows, loopLagP99Ms: (after.gauges[LOOP_LAG_P99] ?? NaN) * 1000 };
}

/** A service's resident memory in bytes, as its last scrape says; null when it has no such metric. */
export const rssOf = (metrics: Metrics | null | undefined) => metrics?.gauges[PROCESS_RSS] ?? null;

/**
 * A service's CPU between two scrapes and its memory, from its own prom-client metrics, in the
 * shape ProcessSampler.stop() gives for a process: { cpuSeconds, cpuPct, rssMb, peakRssMb }; null
 * when either scrape lacks process_cpu_seconds_total.
 */
export function processUsage(
  before: Metrics | null | undefined,
  after: Metrics | null | undefined,
  seconds: number,
  peakRssBytes = 0,
) {
  const [start, end] = [before?.gauges[PROCESS_CPU], after?.gauges[PROCESS_CPU]];
  if (start === undefined || end === undefined) return null;
  const rss = rssOf(after);
  const mb = (bytes: number | null) => (bytes === null ? null : bytes / 2 ** 20);
  return {
    cpuSeconds: end - start,
    cpuPct: (100 * (end - start)) / seconds,
    rssMb: mb(rss),
    peakRssMb: mb(Math.max(peakRssBytes, rss ?? 0) || null),
  };
}
