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
      const late = /lateness ms: p50 (-?\d+)\s+p95 (-?\d+)\s+p99 (-?\d+)\s+max (-?\d+)/.exec(output);
      const fired = /fired (\d+)\/(\d+), duplicates (\d+)/.exec(output);
      resolve({
        code,
        p50: late ? Number(late[1]) : null,
        p95: late ? Number(late[2]) : null,
        p99: late ? Number(late[3]) : null,
        max: late ? Number(late[4]) : null,
        fired: fired ? Number(fired[1]) : null,
        rooms: fired ? Number(fired[2]) : rooms,
        duplicates: fired ? Number(fired[3]) : null,
        output,
      });
    });
  });
}
