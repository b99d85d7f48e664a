import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { baseUrl, CHROMIUM, CHROMIUM_ARGS } from './config';

export interface Viewport {
  width: number;
  height: number;
}
/** Window heights of 751 px and more put the menu button on the right (SPEC §2). */
export const DESKTOP: Viewport = { width: 1280, height: 900 };
export const LAPTOP: Viewport = { width: 1024, height: 768 };
export const PHONE: Viewport = { width: 390, height: 844 };

/** How long a single wait or action may take before it counts as a failure. */
export const ACTION_TIMEOUT_MS = 10_000;

/**
 * Debian's Chromium, headless. Playwright gives every browser it launches a fresh temporary
 * user-data directory (and removes it on close); people get separate contexts in it.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/**
 * One browser for a test file: launched before its scenarios and closed after them. Returns the
 * way to reach it (it exists only once the file's beforeAll has run).
 */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is launched in beforeAll');
    return browser;
  };
}

/** Everything a person's pages said: console messages, uncaught errors, failed API calls. */
export interface PageLog {
  lines: string[];
  /** Uncaught exceptions in the page: a scenario fails if there are any. */
  errors: string[];
}

/**
 * One person at one browser: a browser context of their own (their own localStorage, so their own
 * login and visitor id) with one page, plus any extra tabs they open.
 */
export class Person {
  readonly log: PageLog = { lines: [], errors: [] };
  private readonly tabs: Page[] = [];

  private constructor(
    /** Short, file-name friendly: 'amira', 'visitor'. */
    readonly label: string,
    readonly context: BrowserContext,
    readonly page: Page,
  ) {
    this.watch(page);
  }

  static async enter(browser: Browser, label: string, viewport: Viewport = DESKTOP): Promise<Person> {
    const context = await browser.newContext({ baseURL: baseUrl(), viewport, locale: 'en-GB' });
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    const page = await context.newPage();
    const person = new Person(label, context, page);
    present.add(person);
    return person;
  }

  /** Another tab in the same browser context (same login). */
  async openTab(): Promise<Page> {
    const tab = await this.context.newPage();
    this.watch(tab);
    this.tabs.push(tab);
    return tab;
  }

  /** Every open page of this person, the main one first. */
  pages(): Page[] {
    return [this.page, ...this.tabs].filter((p) => !p.isClosed());
  }

  async leave(): Promise<void> {
    present.delete(this);
    await this.context.close();
  }

  private watch(page: Page): void {
    const tab = page === this.page ? '' : ` tab${this.tabs.length + 1}`;
    const stamp = () => new Date().toISOString().slice(11, 23);
    page.on('console', (message) =>
      this.log.lines.push(`${stamp()}${tab} console.${message.type()}: ${message.text()}`),
    );
    page.on('pageerror', (error) => {
      const text = `${error.name}: ${error.message}`;
      this.log.errors.push(text);
      this.log.lines.push(`${stamp()}${tab} pageerror: ${error.stack ?? text}`);
    });
    page.on('requestfailed', (request) => {
      // An SSE stream or a poll cut short by a page change is not news.
      if (request.failure()?.errorText === 'net::ERR_ABORTED') return;
      this.log.lines.push(
        `${stamp()}${tab} request failed: ${request.method()} ${request.url()} ${request.failure()?.errorText ?? ''}`,
      );
    });
    page.on('response', (response) => {
      if (response.status() >= 400)
        this.log.lines.push(
          `${stamp()}${tab} HTTP ${response.status()} ${response.request().method()} ${response.url()}`,
        );
    });
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.log.lines.push(`${stamp()}${tab} at ${frame.url()}`);
    });
  }

  /** Saves the console log as <dir>/<name>. */
  saveLog(dir: string, name: string): void {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, name), this.log.lines.join('\n') + '\n');
  }
}

/** The people whose browsers are open, for the failure evidence. */
export const present = new Set<Person>();
