import type { Browser, BrowserContext, Page, ViewportSize } from '@playwright/test';

export type Viewport = ViewportSize;
/** Window heights of 751 px and more put the menu button on the right (SPEC §2). */
export const DESKTOP: Viewport = { width: 1280, height: 900 };
export const LAPTOP: Viewport = { width: 1024, height: 768 };
export const PHONE: Viewport = { width: 390, height: 844 };

/**
 * One person at one browser: a browser context of their own (their own localStorage, so their own
 * login and visitor id) with one page, plus any extra tabs they open. The context takes the base URL,
 * locale and action timeout of playwright.config.ts; Playwright traces it, and screenshots its pages
 * if the scenario fails.
 */
export class Person {
  /** Uncaught exceptions in this person's pages since the last scenario ended: it fails on any. */
  readonly errors: string[] = [];

  private constructor(
    /** Short, file-name friendly: 'amira', 'visitor'. */
    readonly label: string,
    readonly context: BrowserContext,
    readonly page: Page,
  ) {
    this.watch(page);
  }

  static async enter(browser: Browser, label: string, viewport: Viewport = DESKTOP): Promise<Person> {
    const context = await browser.newContext({ viewport });
    const person = new Person(label, context, await context.newPage());
    present.add(person);
    return person;
  }

  /** Another tab in the same browser context (same login). */
  async openTab(): Promise<Page> {
    const tab = await this.context.newPage();
    this.watch(tab);
    return tab;
  }

  async leave(): Promise<void> {
    present.delete(this);
    await this.context.close();
  }

  private watch(page: Page): void {
    page.on('pageerror', (error) => this.errors.push(`${error.name}: ${error.message}`));
  }
}

/** The people whose browser contexts are open. */
export const present = new Set<Person>();
