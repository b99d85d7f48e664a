// The stack record (stack.ts: runningStack) and the reaper of abandoned throwaway stacks
// (throwaway.ts), with real processes: a stand-in "service" is a Node process whose command line
// names a service's build output, which is what the record's check reads.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from './proc.ts';
import { runningStack } from './stack.ts';
import { makeThrowawayDir } from './throwaway.ts';

const PREFIX = 'oasis-throwaway-test-';
const started: ChildProcess[] = [];
after(() => {
  for (const { pid } of started) if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
});

/** A process that runs until stopped, with `main` on its command line (in a group of its own). */
async function standIn(main: string) {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', main], {
    detached: true,
    stdio: 'ignore',
  });
  await once(child, 'spawn');
  started.push(child);
  return child as ChildProcess & { pid: number };
}

/** The pid of a process that has exited. */
async function deadPid() {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid ?? 0;
}

function writeRecord(runDir: string, apps: { name: string; pid: number; port: number }[]) {
  mkdirSync(runDir, { recursive: true });
  const record = { url: 'http://127.0.0.1:1', apps, nats: { pid: 0 }, mongo: { pid: 0 } };
  writeFileSync(path.join(runDir, 'stack.json'), JSON.stringify(record));
}

test('runningStack: none without a record; with one, only the services that still run', async () => {
  const runDir = mkdtempSync(path.join(os.tmpdir(), PREFIX));
  try {
    assert.equal(runningStack(runDir), undefined);
    const rooms = await standIn('dist/apps/rooms/main.js');
    const other = await standIn('something-else.js'); // alive, but not what the record says
    writeRecord(runDir, [
      { name: 'rooms', pid: rooms.pid, port: 3103 },
      { name: 'auth', pid: await deadPid(), port: 3101 },
      { name: 'gateway', pid: other.pid, port: 8080 },
    ]);
    assert.deepEqual(runningStack(runDir)?.apps, [{ name: 'rooms', pid: rooms.pid, port: 3103 }]);
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
});

test("a new throwaway directory stops an abandoned one's services and removes it", async () => {
  const abandoned = mkdtempSync(path.join(os.tmpdir(), PREFIX));
  const rooms = await standIn('dist/apps/rooms/main.js');
  writeFileSync(path.join(abandoned, 'owner.json'), JSON.stringify({ pid: await deadPid() }));
  writeRecord(path.join(abandoned, 'run'), [{ name: 'rooms', pid: rooms.pid, port: 3103 }]);

  const fresh = await makeThrowawayDir(PREFIX, 'throwaway.test.ts');
  try {
    for (let i = 0; i < 100 && isAlive(rooms.pid); i++) await sleep(50);
    assert.equal(isAlive(rooms.pid), false, 'the abandoned service still runs');
    assert.equal(existsSync(abandoned), false, 'the abandoned directory is still there');
    assert.equal(existsSync(fresh.dir), true);
  } finally {
    rmSync(fresh.dir, { recursive: true, force: true });
  }
});

test('a throwaway directory whose runner still runs is left alone', async () => {
  const owned = mkdtempSync(path.join(os.tmpdir(), PREFIX));
  const rooms = await standIn('dist/apps/rooms/main.js');
  // This test process is the runner, and its command line names this file.
  writeFileSync(path.join(owned, 'owner.json'), JSON.stringify({ pid: process.pid }));
  writeRecord(path.join(owned, 'run'), [{ name: 'rooms', pid: rooms.pid, port: 3103 }]);

  const fresh = await makeThrowawayDir(PREFIX, 'throwaway.test.ts');
  try {
    assert.equal(isAlive(rooms.pid), true);
    assert.equal(existsSync(owned), true);
  } finally {
    rmSync(fresh.dir, { recursive: true, force: true });
    rmSync(owned, { recursive: true, force: true });
  }
});
