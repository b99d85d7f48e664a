import path from 'node:path';

/** The workspace's .artifacts (git-ignored). */
const ARTIFACTS = path.resolve(__dirname, '../../../../.artifacts');

/**
 * Playwright's output directory, which it empties when a run starts: the scenarios' screenshots
 * (<n>-<slug>/), the stack's log, and a failing scenario's trace and screenshots.
 */
export const E2E_ARTIFACTS = path.join(ARTIFACTS, 'e2e');

/** Screenshots of screens for people to look at, by name and width: .artifacts/screens. */
export const SCREENS = path.join(ARTIFACTS, 'screens');
