// Commit messages: Conventional Commits (`type(scope): subject`), the subject at most 72
// characters; the body, when there is one, says why. Checked by the commit-msg hook that
// `npm run setup` installs (tools/git-hooks) and by `npm test` (tools/scripts/commit-messages.ts).

/**
 * `npm test` checks every commit that descends from this one (the commit before the check
 * came): older history follows other conventions and is not rewritten.
 */
export const CHECKED_FROM = 'ababaa99a302bd7973199e542b76297001ce290f';

export default {
  extends: ['@commitlint/config-conventional'],
  rules: {
    'header-max-length': [2, 'always', 72],
    // A body is one paragraph per line as `git commit -m` writes it: no line length.
    'body-max-line-length': [0],
    'footer-max-line-length': [0],
    // A subject may start with a name (NATS, Play now, ADRs): its case is not checked.
    'subject-case': [0],
  },
};
