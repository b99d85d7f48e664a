// Which commits the commit-message check covers, and that it refuses a bad message among them,
// on a throwaway git repository checked with the workspace's commitlint.config.mjs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { commitsToCheck, refusedCommits } from './commit-messages.ts';
import { ROOT } from './workspace.ts';

const repo = mkdtempSync(path.join(os.tmpdir(), 'oasis-commit-messages-'));
after(() => rmSync(repo, { recursive: true, force: true }));

function git(...args: string[]): string {
  const result = spawnSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'test',
      GIT_AUTHOR_EMAIL: 'test@example.test',
      GIT_COMMITTER_NAME: 'test',
      GIT_COMMITTER_EMAIL: 'test@example.test',
    },
  });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}
const commit = (...messages: string[]): string => {
  git('commit', '-q', '--allow-empty', ...messages.flatMap((m) => ['-m', m]));
  return git('rev-parse', 'HEAD');
};

test('checks only the commits that descend from CHECKED_FROM, and refuses a bad one among them', async () => {
  git('init', '-q', '-b', 'main');
  commit('review: history from before the check, kept as it is');
  const fork = commit('README: more history');
  const since = commit('chore(tools): commit messages checked by commitlint');
  const good = commit('fix(rooms): a closed room says why', 'The body says why, at any line length.');
  // A branch forked before the check and merged after it: its commit is history too.
  git('checkout', '-q', '-b', 'old', fork);
  const forked = commit('Old style message from a branch');
  git('checkout', '-q', 'main');
  git('merge', '-q', '--no-ff', '--no-edit', 'old');
  const merge = git('rev-parse', 'HEAD');

  const checked = commitsToCheck(repo, since);
  assert.deepEqual(
    checked.map((c) => c.sha),
    [good, merge],
  );
  assert.ok(!checked.some((c) => c.sha === forked || c.sha === since));
  // The merge's own message ("Merge branch …") is git's, and commitlint ignores it.
  assert.deepEqual(await refusedCommits(ROOT, checked), []);

  const untyped = commit('a closed room says why');
  const long = commit(`fix(rooms): ${'a subject that goes on and on '.repeat(3)}`);
  const refused = await refusedCommits(ROOT, commitsToCheck(repo, since));
  assert.deepEqual(
    refused.map((r) => r.sha),
    [untyped, long],
  );
  assert.match(refused[0]?.errors.join('\n') ?? '', /type-empty/);
  assert.match(refused[1]?.errors.join('\n') ?? '', /header-max-length/);
});

test('fails, instead of checking nothing, when CHECKED_FROM is not in the clone', () => {
  assert.throws(() => commitsToCheck(repo, '0123456789abcdef0123456789abcdef01234567'), /full history/);
});
