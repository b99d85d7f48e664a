import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AxeResults } from 'axe-core';
import type { Page } from '@playwright/test';
import { DESKTOP, PHONE, type Viewport } from './browser';
import { SCREENS } from './config';

/** The widths every screen is audited at: a 390 px phone and a 1280 px desktop. */
const AUDIT_VIEWPORTS: readonly Viewport[] = [PHONE, DESKTOP];

/** axe-core's browser bundle, read once per test file. */
let axeSource: string | undefined;

/**
 * Evaluated in the page rather than added as a <script> tag: the app's Content-Security-Policy
 * lets only its own scripts run, and the audit must see the page exactly as players get it.
 */
async function ensureAxe(page: Page): Promise<void> {
  if (await page.evaluate(() => 'axe' in window)) return;
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
}

/**
 * Waits until no finite animation runs (a dialog popping in, a button's colour changing): contrast
 * is measured on the settled screen. It looks again after each wait, because a transition can be
 * cancelled and restarted from where it was (the pointer's hover ends as the button it rests on
 * changes), and the restarted one would still be mid-way when axe-core measures it.
 */
async function settle(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const running = () =>
      document
        .getAnimations()
        .filter(
          (a) =>
            a.playState === 'running' &&
            a.effect?.getComputedTiming().iterations !== Number.POSITIVE_INFINITY,
        );
    for (let round = 0, now = running(); now.length > 0 && round < 20; round++, now = running()) {
      await Promise.all(now.map((a) => a.finished.catch(() => undefined)));
    }
    await new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));
  });
}

/** Every axe-core rule (WCAG 2.x A and AA and best practices) the page breaks now. */
export async function axeViolations(page: Page) {
  await ensureAxe(page);
  await settle(page);
  return page.evaluate(async () => {
    const { axe } = window as unknown as { axe: { run(context: Document): Promise<AxeResults> } };
    const results = await axe.run(document);
    return results.violations.map((v) => ({
      rule: v.id,
      impact: v.impact ?? null,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
}

/** What an audited screen is: one of SPEC's routes, a dialog, or a layer of the room screen. */
export type ScreenKind = 'route' | 'dialog' | 'room layer';

/** One screen audited at one width: each rule broken, with the elements that break it. */
type Violations = Awaited<ReturnType<typeof axeViolations>>;
type Audit = { kind: ScreenKind; screen: string; width: number; violations: Violations };

/**
 * The audits of one test file (or of one screen: auditScreen), each screen at both widths; the file
 * prints how many screens it audited and how many violations it found.
 */
export class AxeReport {
  private readonly audited: Audit[] = [];

  /**
   * Audits the page as it is now at 390 and 1280 px (it is resized, then restored); `onEach` runs
   * at each width after the audit (screenshots).
   */
  async audit(
    page: Page,
    kind: ScreenKind,
    screen: string,
    onEach?: (width: number) => Promise<unknown>,
  ): Promise<void> {
    const original = page.viewportSize();
    try {
      for (const viewport of AUDIT_VIEWPORTS) {
        await page.setViewportSize(viewport);
        this.audited.push({ kind, screen, width: viewport.width, violations: await axeViolations(page) });
        await onEach?.(viewport.width);
      }
    } finally {
      if (original) await page.setViewportSize(original);
    }
  }

  /** Every violation so far, one line each: where, at which width, which rule, which elements. */
  violations(): string[] {
    return this.audited.flatMap(({ screen, width, violations }) =>
      violations.map(
        (v) => `${screen} @${width}px: ${v.rule} (${v.impact ?? 'n/a'}) ${v.help}: ${v.targets.join(', ')}`,
      ),
    );
  }

  /** How many routes, dialogs and room layers were audited, and each screen's violations. */
  summary(): string {
    const screens = [...new Map(this.audited.map((a) => [a.screen, a.kind])).entries()];
    const kinds: ScreenKind[] = ['route', 'dialog', 'room layer'];
    const counted = kinds.map((kind) => `${screens.filter(([, k]) => k === kind).length} ${kind}s`);
    const total = this.audited.reduce((n, a) => n + a.violations.length, 0);
    const widths = AUDIT_VIEWPORTS.map((v) => v.width).join(' and ');
    const lines = screens.map(([screen, kind]) => {
      const found = this.audited.filter((a) => a.screen === screen).map((a) => a.violations.length);
      return `  ${kind} ${screen}: ${found.join(' + ')} violations`;
    });
    return [
      `axe-core: ${screens.length} screens (${counted.join(', ')}) at ${widths} px, ` +
        `${this.audited.length} audits, ${total} violations`,
      ...lines,
    ].join('\n');
  }
}

/**
 * A new screen as people and axe-core see it at a 390 px phone and a 1280 px desktop: the page is
 * resized (then restored), audited, and saved as .artifacts/screens/<name>-<width>.png. Resolves
 * with every violation found, one readable line each.
 */
export async function auditScreen(page: Page, name: string): Promise<string[]> {
  const report = new AxeReport();
  await report.audit(page, 'route', name, (width) =>
    page.screenshot({
      path: path.join(SCREENS, `${name}-${width}.png`),
      fullPage: true,
      animations: 'disabled',
    }),
  );
  const found = report.violations();
  console.log(`axe-core: ${name} at 390 and 1280 px: ${found.length} violations`);
  return found;
}
