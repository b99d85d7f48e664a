// Timer lateness with 10,000 pending deadlines and two timer replicas: runs
// tools/bench/timer-bench.mjs (its own throwaway NATS + the built game timer, a stand-in for rooms
// that records arrivals) and reads its figures.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../../scripts/lib/workspace.mjs';

/** Resolves { p50, p95, p99, max, fired, rooms, duplicates, output } (figures in ms; null when missing). */
export function runTimerBench({ rooms = 10_000, replicas = 2, onLine = () => undefined } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'tools', 'bench', 'timer-bench.mjs'),
        '--rooms',
        String(rooms),
        '--replicas',
        String(replicas),
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const take = (chunk) => {
      output += chunk;
      for (const line of String(chunk).split('\n')) if (line.trim()) onLine(line);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', reject);
    child.on('close', (code) => {
      // The benchmark's figures: its JSON line (none when it failed before measuring).
      const line = output.split('\n').find((l) => l.startsWith('{"bench":"timer"'));
      const figures = line ? JSON.parse(line) : {};
      resolve({
        code,
        p50: figures.p50Ms ?? null,
        p95: figures.p95Ms ?? null,
        p99: figures.p99Ms ?? null,
        max: figures.maxMs ?? null,
        fired: figures.fired ?? null,
        rooms: figures.rooms ?? rooms,
        duplicates: figures.duplicates ?? null,
        output,
      });
    });
  });
}
