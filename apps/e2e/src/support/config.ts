import { mkdirSync } from 'node:fs';
import path from 'node:path';

/** Where the stack under test answers: tools/scripts/e2e.mjs sets it (or --url does). */
export function baseUrl(): string {
  const url = process.env['E2E_BASE_URL'];
  if (!url) {
    throw new Error(
      'E2E_BASE_URL is not set: run the scenarios with `npm run e2e`, which starts the stack, ' +
        'or `npm run e2e -- --url http://127.0.0.1:8080` against one that runs',
    );
  }
  return url;
}

/** Screenshots and failure evidence: .artifacts/e2e (git-ignored). */
export function artifactsDir(): string {
  return process.env['E2E_ARTIFACTS_DIR'] ?? path.resolve(__dirname, '../../../../.artifacts/e2e');
}

/** Screenshots of screens for people to look at, by name and width: .artifacts/screens (git-ignored). */
export function screensDir(): string {
  const dir = path.join(artifactsDir(), '..', 'screens');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Debian's Chromium, installed by `node tools/scripts/setup.mjs --chromium`. Never downloaded. */
export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
