// Commit messages checked by commitlint (commitlint.config.mjs): which commits a check covers, and
// the check itself. History from before the check is not rewritten, so only the commits that
// descend from CHECKED_FROM are held to it.
import { spawnSync } from 'node:child_process';

/** A commit and its full message. */
export interface Commit {
  sha: string;
  message: string;
}

/** A commit whose message commitlint refuses, with its errors. */
export interface Refusal {
  sha: string;
  subject: string;
  errors: string[];
}

function git(cwd: string, args: string[]): string {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

/**
 * The commits of `head` that descend from `since` (since itself not), oldest first: a commit merged
 * in from a branch that forked before `since` is history, not checked. `since` must be in the
 * clone: a shallow clone that lacks it fails rather than checking nothing.
 */
export function commitsToCheck(cwd: string, since: string, head = 'HEAD'): Commit[] {
  if (spawnSync('git', ['cat-file', '-e', `${since}^{commit}`], { cwd }).status !== 0) {
    throw new Error(
      `commit ${since} (commitlint.config.mjs CHECKED_FROM) is not in this clone: fetch the full history (git fetch --unshallow)`,
    );
  }
  const shas = git(cwd, ['rev-list', '--reverse', '--ancestry-path', `${since}..${head}`])
    .split('\n')
    .filter(Boolean);
  return shas.map((sha) => ({ sha, message: git(cwd, ['log', '-1', '--format=%B', sha]) }));
}

/** Each commit whose message the commitlint configuration in `configDir` refuses (warnings pass). */
export async function refusedCommits(configDir: string, commits: readonly Commit[]): Promise<Refusal[]> {
  const { default: load } = await import('@commitlint/load');
  const { default: lint } = await import('@commitlint/lint');
  const config = await load({}, { cwd: configDir });
  const options = {
    ...(config.parserPreset?.parserOpts ? { parserOpts: config.parserPreset.parserOpts as object } : {}),
    ...(config.plugins ? { plugins: config.plugins } : {}),
    ...(config.ignores ? { ignores: config.ignores } : {}),
    defaultIgnores: config.defaultIgnores ?? true,
  };
  const refused: Refusal[] = [];
  for (const { sha, message } of commits) {
    const outcome = await lint(message, config.rules, options);
    if (!outcome.valid) {
      const subject = message.split('\n')[0] ?? '';
      refused.push({ sha, subject, errors: outcome.errors.map((e) => `${e.message} [${e.name}]`) });
    }
  }
  return refused;
}
