import path from 'node:path';
import type { Page } from '@playwright/test';
import { axeViolations } from './axe';
import { DESKTOP, PHONE } from './browser';
import { screensDir } from './config';

/**
 * A new screen as people and axe-core see it at a 390 px phone and a 1280 px desktop: the page is
 * resized (then restored), audited, and saved as .artifacts/screens/<name>-<width>.png. Resolves
 * with every violation found, one readable line each.
 */
export async function auditScreen(page: Page, name: string): Promise<string[]> {
  const original = page.viewportSize();
  const found: string[] = [];
  try {
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      for (const v of await axeViolations(page)) {
        found.push(
          `${name} @${viewport.width}px: ${v.rule} (${v.impact ?? 'n/a'}) ${v.help}: ${v.targets.join(', ')}`,
        );
      }
      await page.screenshot({
        path: path.join(screensDir(), `${name}-${viewport.width}.png`),
        fullPage: true,
        animations: 'disabled',
      });
    }
  } finally {
    if (original) await page.setViewportSize(original);
  }
  console.log(`axe-core: ${name} at 390 and 1280 px: ${found.length} violations`);
  return found;
}
