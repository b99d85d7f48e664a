import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { Person } from './browser';
import { present } from './browser';
import { artifactsDir, screensDir } from './config';

interface Current {
  dir: string;
  shots: number;
  /** False when the scenario could not start: there is nothing of its own to keep. */
  evidence: boolean;
}

let current: Current | undefined;
const passed = new Set<number>();
/** Page errors already reported, per person, so each scenario judges only its own. */
const seenErrors = new WeakMap<Person, number>();

export interface ScenarioOptions {
  /** Scenarios whose state this one continues (the same people, the same room). */
  after?: number[];
  /** Jest's budget for the whole scenario (default 60 s). */
  timeout?: number;
  /**
   * A scenario whose screenshots are for people to look at: they go to .artifacts/screens/ instead,
   * which the e2e runner does not wipe when it starts (another run's start would lose them); the
   * scenario empties its own folder there when it starts.
   */
  screens?: boolean;
}

/**
 * One numbered scenario of the issue as a Jest test. Its screenshots go to
 * .artifacts/e2e/<number>-<slug>/; if it fails, every open page's screenshot and console log are
 * kept there too (see jest.environment.cjs). A scenario fails when a page threw an uncaught error.
 */
export function scenario(
  number: number,
  slug: string,
  title: string,
  run: () => Promise<void>,
  { after = [], timeout, screens = false }: ScenarioOptions = {},
): void {
  test(
    `${number}. ${title}`,
    async () => {
      const dir = path.join(screens ? screensDir() : artifactsDir(), `${number}-${slug}`);
      if (screens) rmSync(dir, { recursive: true, force: true });
      current = { dir, shots: 0, evidence: true };
      mkdirSync(current.dir, { recursive: true });
      const missing = after.filter((n) => !passed.has(n));
      if (missing.length) {
        current.evidence = false;
        throw new Error(`scenario ${missing.join(', ')} did not pass, and this one continues from it`);
      }
      await run();
      expect(newPageErrors()).toEqual([]);
      passed.add(number);
    },
    timeout,
  );
}

function newPageErrors(): string[] {
  const errors: string[] = [];
  for (const person of present) {
    const seen = seenErrors.get(person) ?? 0;
    errors.push(...person.log.errors.slice(seen).map((e) => `${person.label}: ${e}`));
    seenErrors.set(person, person.log.errors.length);
  }
  return errors;
}

function scenarioDir(): string {
  const dir = current?.dir ?? path.join(artifactsDir(), 'setup');
  mkdirSync(dir, { recursive: true });
  return dir;
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
  const dir = scenarioDir();
  const n = current ? ++current.shots : 0;
  const file = `${String(n).padStart(2, '0')}-${person.label}-${what}.png`;
  const modal = (await page.getByRole('dialog').or(page.getByRole('alertdialog')).count()) > 0;
  await page.screenshot({
    path: path.join(dir, file),
    fullPage: !modal && !windowOnly,
    animations: 'disabled',
  });
}

async function keepEvidence(): Promise<void> {
  if (current && !current.evidence) return;
  const dir = scenarioDir();
  for (const person of present) {
    person.saveLog(dir, `failure-${person.label}.console.log`);
    const pages = person.pages();
    for (const [i, page] of pages.entries()) {
      const suffix = i === 0 ? '' : `-tab${i}`;
      await page
        .screenshot({
          path: path.join(dir, `failure-${person.label}${suffix}.png`),
          fullPage: true,
          timeout: 5000,
        })
        .catch((error: unknown) =>
          console.error(`no failure screenshot of ${person.label}: ${String(error)}`),
        );
    }
  }
}

(globalThis as { __e2eOnFailure?: () => Promise<void> }).__e2eOnFailure = keepEvidence;
