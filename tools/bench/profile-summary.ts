#!/usr/bin/env node
// Summarizes V8 .cpuprofile files (from `npm run bench -- --profile`): where the CPU time went, by
// package and by function (self time), and the heaviest call paths into a package.
import { readFileSync } from 'node:fs';
import type { Profiler, Runtime } from 'node:inspector';
import path from 'node:path';
import { parseOptions } from '../scripts/lib/log.ts';

const { values, positionals } = parseOptions(
  'Usage: node tools/bench/profile-summary.ts <file.cpuprofile>... [--top 25]',
  { top: { type: 'string', default: '25' } },
  { allowPositionals: true },
);
const TOP = Number(values.top);

/** node_modules/<package>, the app's own bundle, Node's internals, or V8's pseudo frames. */
function packageOf(frame: Runtime.CallFrame) {
  const url = frame.url || '';
  const [, inModules] = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url) ?? [];
  if (inModules) return inModules;
  if (/dist\/apps\/[^/]+\/main\.js/.test(url)) return 'app bundle';
  if (url.startsWith('node:') || /^internal\//.test(url)) return 'node internals';
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  return path.basename(url);
}

/** Adds `time` to `key`'s total. */
const add = <K>(totals: Map<K, number>, key: K, time: number) =>
  totals.set(key, (totals.get(key) ?? 0) + time);

for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Required<Profiler.Profile>;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const frameOf = (id: number) => (nodes.get(id) as Profiler.ProfileNode).callFrame;
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => add(self, id, profile.timeDeltas[i] ?? 0));
  const total = [...self.values()].reduce((a, b) => a + b, 0);

  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  // Inclusive time of the app's own frames: which of its functions the time is spent under.
  const inclusive = new Map<string, number>();
  for (const [id, time] of self) {
    const frame = frameOf(id);
    const pkg = packageOf(frame); // '(idle)' for V8's idle frame
    add(byPackage, pkg, time);
    if (pkg === '(idle)') continue;
    const key = `${frame.functionName || '(anonymous)'}  ${pkg}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    add(byFunction, key, time);
    const under = new Set<string>(); // each function once, however deep it recurses
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const caller = frameOf(at);
      if (packageOf(caller) === 'app bundle')
        under.add(`${caller.functionName || '(anonymous)'}:${caller.lineNumber + 1}`);
    }
    for (const name of under) add(inclusive, name, time);
  }
  const busy = total - (byPackage.get('(idle)') ?? 0);
  byPackage.delete('(idle)');
  /** The `TOP` largest totals, under `title`, in % of the busy time. */
  const printTop = (title: string, totals: Map<string, number>) => {
    console.log(`  ${title}:`);
    for (const [name, t] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, TOP))
      console.log(`    ${((100 * t) / busy).toFixed(1).padStart(5)} %  ${name}`);
  };
  console.log(
    `\n${path.basename(file)}: ${(total / 1e6).toFixed(1)} s sampled, busy ${(busy / 1e6).toFixed(1)} s (${((100 * busy) / total).toFixed(0)} %)`,
  );
  printTop('by package (self time, % of busy)', byPackage);
  printTop('by function (self time)', byFunction);
  if (inclusive.size) printTop('app bundle functions (inclusive time)', inclusive);
}
