// The peer's server as a process of its own (server.ts), so the sampler sees its CPU apart from
// the bots'.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { freePort, HOST } from '../../scripts/lib/net.ts';
import { forEachLine } from '../../scripts/lib/proc.ts';
import { ROOT } from '../../scripts/lib/workspace.ts';

/** Starts the peer on a free port; resolves { url, pid, stop() } once it listens (60 s at most). */
export async function startPeer({ onLine = (_line: string) => undefined } = {}) {
  const port = await freePort();
  const script = path.join(ROOT, 'tools', 'bench', 'peer-colyseus', 'server.ts');
  const child = spawn(process.execPath, [script, '--port', String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  forEachLine(child.stdout, (line) => {
    if (line.startsWith('listening ')) listening();
    onLine(line);
  });
  forEachLine(child.stderr, onLine);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const failed = exited.then(([code]) => {
    throw new Error(`the peer exited with code ${code} before it listened`);
  });
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('the peer did not listen within 60 s')), 60_000).unref(),
  );
  try {
    await Promise.race([ready, failed, timeout]);
  } catch (error) {
    await stop();
    throw error;
  }
  failed.catch(() => undefined);
  return { url: `http://${HOST}:${port}`, pid: child.pid as number, stop };
}
