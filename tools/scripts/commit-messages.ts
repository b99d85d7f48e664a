#!/usr/bin/env node
// `npm test`'s check of commit messages: every commit since CHECKED_FROM (commitlint.config.mjs)
// follows Conventional Commits with a subject of at most 72 characters. Exits 1 naming each one
// that does not. The commit-msg hook (tools/git-hooks) checks a message as it is written.
import { refusedCommits, commitsToCheck } from './lib/commit-messages.ts';
import { ROOT } from './lib/workspace.ts';

const { CHECKED_FROM } = (await import(`${ROOT}/commitlint.config.mjs`)) as { CHECKED_FROM: string };
const commits = commitsToCheck(ROOT, CHECKED_FROM);
const refused = await refusedCommits(ROOT, commits);
for (const { sha, subject, errors } of refused) {
  console.error(`✗ ${sha.slice(0, 10)} ${subject}`);
  for (const error of errors) console.error(`    ${error}`);
}
if (refused.length > 0) {
  console.error(
    `${refused.length} of ${commits.length} commit messages do not follow commitlint.config.mjs.`,
  );
  process.exit(1);
}
console.log(
  `${commits.length} commit messages since ${CHECKED_FROM.slice(0, 10)} follow commitlint.config.mjs.`,
);
