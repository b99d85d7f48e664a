import path from 'node:path';
import type { Page } from '@playwright/test';
import { auditAtBothWidths, violationLines } from './axe';
import { screensDir } from './config';

/**
 * A new screen as people and axe-core see it at a 390 px phone and a 1280 px desktop: the page is
 * resized (then restored), audited, and saved as .artifacts/screens/<name>-<width>.png. Resolves
 * with every violation found, one readable line each.
 */
export async function auditScreen(page: Page, name: string): Promise<string[]> {
  const found = violationLines(
    await auditAtBothWidths(page, name, (width) =>
      page.screenshot({
        path: path.join(screensDir(), `${name}-${width}.png`),
        fullPage: true,
        animations: 'disabled',
      }),
    ),
  );
  console.log(`axe-core: ${name} at 390 and 1280 px: ${found.length} violations`);
  return found;
}
