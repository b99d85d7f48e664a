import { randomBytes } from 'node:crypto';
import { type Browser, expect, type Page } from '@playwright/test';
import { DESKTOP, Person, type Viewport } from './browser';

/**
 * A newcomer's details, unique per run: a username of letters and digits (SPEC §5: 4 to 16), an
 * e-mail of at most 32 characters, and a password of letters and digits that is on no common list.
 */
export function newcomer(first: string) {
  const tag = randomBytes(3).toString('hex');
  return {
    name: `${first}${tag}`.slice(0, 16),
    email: `${first.toLowerCase()}.${tag}@oasis.test`,
    password: `Dune${tag}Palm`,
  };
}
export type Account = ReturnType<typeof newcomer>;

/** Fills in /join and submits it; resolves with the success dialog open. */
export async function register(person: Person, account: Account): Promise<void> {
  const { page } = person;
  await page.goto('/join');
  await page.getByRole('heading', { name: 'Join the caravan' }).waitFor();
  await page.getByLabel('Username').fill(account.name);
  await page.getByLabel('E-mail').fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByLabel('Confirm password').fill(account.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('dialog', { name: 'Account has been successfully created' }).waitFor();
}

/** Closes the registration success dialog with Ok, which opens the newcomer's profile. */
export async function confirmRegistered(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Ok', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: `Profile · ${name}` }).waitFor();
}

/** A person at their browser with their account. */
export interface Player {
  person: Person;
  account: Account;
}

/**
 * A newcomer who has registered and is on their profile: `first` starts the username, `label`
 * (lower-case `first` unless given) names the person in screenshots and errors.
 */
export async function newPlayer(
  browser: Browser,
  first: string,
  viewport: Viewport = DESKTOP,
  label = first.toLowerCase(),
): Promise<Player> {
  const person = await Person.enter(browser, label, viewport);
  const account = newcomer(first);
  await register(person, account);
  await confirmRegistered(person.page, account.name);
  return { person, account };
}

/** Closes a login, logout or deletion success dialog with Ok, which leads home. */
export async function confirmOk(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Ok', exact: true }).click();
  await page.getByRole('heading', { name: 'Race to 198 across the dunes' }).waitFor();
}

/** Fills in /login and submits it. */
export async function submitLogin(page: Page, account: Pick<Account, 'email' | 'password'>): Promise<void> {
  await page.goto('/login');
  await page.getByRole('heading', { name: 'Welcome back, traveller' }).waitFor();
  await page.getByLabel('E-mail').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Log in', exact: true }).click();
}

/** The way a player gets to their profile: the game menu's Profile link. */
export async function openProfile(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Game menu' }).click();
  await page.getByRole('dialog', { name: 'Game menu' }).getByRole('link', { name: 'Profile' }).click();
  await page.getByRole('heading', { level: 1, name: `Profile · ${name}` }).waitFor();
}

/** What the profile screen shows, card by card: each card is a term and its definition. */
async function readProfile(page: Page) {
  const card = (label: string) =>
    page.locator(`xpath=//dt[normalize-space(.)="${label}"]/following-sibling::dd[1]`).innerText();
  await page.getByRole('tab', { name: 'Coins' }).click();
  const coinPanel = await page.getByRole('tabpanel').innerText();
  return {
    playerName: await card('Player name'),
    playedGames: await card('Played games'),
    assets: await card('Assets'),
    premiumCategory: await card('Premium category'),
    championTitles: await card('Champion titles'),
    statusAndLevel: await card('Status and level'),
    points: /Points\s+(\d+)/.exec(coinPanel)?.[1] ?? `(no Points in "${coinPanel}")`,
    coins: /Coins\s+(\d+)/.exec(coinPanel)?.[1] ?? `(no Coins in "${coinPanel}")`,
  };
}
/** The profile's cards, each a term's definition; points and coins come from the Coin panel (SPEC §2). */
export type ProfileCards = Awaited<ReturnType<typeof readProfile>>;

/**
 * Retries `check` on the profile until it passes. Rewards and the game history are built from
 * events a moment after the game; a player who does not see them yet reloads the page, and so does
 * this.
 */
export async function reloadProfileUntil(
  page: Page,
  name: string,
  check: () => Promise<unknown>,
): Promise<void> {
  let attempt = 0;
  await expect(async () => {
    if (attempt++ > 0) await page.reload();
    await page.getByRole('heading', { level: 1, name: `Profile · ${name}` }).waitFor();
    await check();
  }).toPass({ timeout: 15_000, intervals: [500] });
}

/** Waits until the profile shows what `check` expects (see reloadProfileUntil). */
export async function expectProfile(
  page: Page,
  name: string,
  check: (cards: ProfileCards) => void,
): Promise<void> {
  await reloadProfileUntil(page, name, async () => check(await readProfile(page)));
}
