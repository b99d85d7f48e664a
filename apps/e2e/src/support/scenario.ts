import { rmSync } from 'node:fs';
import path from 'node:path';
import { test as base, expect, type Page, type TestInfo } from '@playwright/test';
import { present, type Person } from './browser';
import { E2E_ARTIFACTS, SCREENS } from './config';

export { expect };

/** Where the running scenario's screenshots go, and how many it took. */
let current = { dir: E2E_ARTIFACTS, shots: 0 };
/** The test file whose scenarios run now. */
let currentFile: string | undefined;

/**
 * Playwright's test for the numbered scenarios of the issues, titled "<number>. <what happens>".
 * Playwright keeps a failing scenario's trace and a screenshot of every open page; shot() saves the
 * key moments to .artifacts/e2e/<number>-<file>/ ("1-quick-battle"). A scenario also fails when a
 * page threw an uncaught error. Scenarios that continue from each other (the same people, the same
 * room) sit in a test.describe.serial group.
 *
 * One browser (Playwright's worker-scoped `browser`) serves every file, and a file's people may
 * stay from one scenario to the next: they leave when the next file's first scenario starts.
 */
export const test = base.extend<{ screens: boolean; scenario: void }>({
  /**
   * Screenshots for people to look at (`test.use({ screens: true })`): they go to .artifacts/screens/
   * instead, which Playwright does not empty when a run starts (another run's start would lose
   * them); the scenario empties its own folder there when it starts.
   */
  screens: [false, { option: true }],
  scenario: [
    async ({ screens }, use, testInfo) => {
      if (testInfo.file !== currentFile) {
        for (const person of present) await person.leave();
        currentFile = testInfo.file;
      }
      const dir = path.join(screens ? SCREENS : E2E_ARTIFACTS, folderOf(testInfo));
      if (screens) rmSync(dir, { recursive: true, force: true });
      current = { dir, shots: 0 };
      await use();
      // Taken also when the scenario failed, so that the next one is not judged by its errors.
      const errors = newPageErrors();
      if (testInfo.status === 'passed') expect(errors).toEqual([]);
    },
    { auto: true },
  ],
});

/** A scenario's folder: its number and its file's name, "8-account" (numbers repeat across files). */
function folderOf({ title, file }: TestInfo): string {
  const number = /^(\d+)\. /.exec(title)?.[1];
  if (!number)
    throw new Error(`a scenario's title starts with its number, like "8. Account flows…": "${title}"`);
  return `${number}-${path.basename(file, '.e2e.ts')}`;
}

/** Page errors since the last scenario ended, taken from each person: each scenario judges its own. */
function newPageErrors(): string[] {
  return [...present].flatMap((person) => person.errors.splice(0).map((e) => `${person.label}: ${e}`));
}

/**
 * A screenshot at a key moment: <nn>-<person>-<what>.png. Animations are finished first (a dialog
 * caught mid-fade looks broken when it is not). The whole page is captured, except while a modal
 * dialog is open: its fixed backdrop covers the window only, so the window is what the person sees.
 * `windowOnly` keeps just the window, to show what fits without scrolling.
 */
export async function shot(
  person: Person,
  what: string,
  page: Page = person.page,
  { windowOnly = false }: { windowOnly?: boolean } = {},
): Promise<void> {
  const file = `${String(++current.shots).padStart(2, '0')}-${person.label}-${what}.png`;
  const modal = (await page.getByRole('dialog').or(page.getByRole('alertdialog')).count()) > 0;
  await page.screenshot({
    path: path.join(current.dir, file),
    fullPage: !modal && !windowOnly,
    animations: 'disabled',
  });
}
