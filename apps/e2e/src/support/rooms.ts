import type { Locator, Page } from '@playwright/test';
import type { Person } from './browser';

/** SPEC §2: the short room label is the last 6 characters of the room id, upper-cased. */
export function roomLabelOf(roomId: string): string {
  return roomId.slice(-6).toUpperCase();
}

export interface Room {
  id: string;
  label: string;
}

export type Duration = '14 s' | '32 s' | '60 s' | '5 min';

/** Home → Quick Battle → Create a Room, fills the form and waits for the room screen. */
export async function createRoom(
  person: Person,
  { duration, passcode = '' }: { duration: Duration; passcode?: string },
): Promise<Room> {
  const { page } = person;
  await page.goto('/');
  await page.getByRole('link', { name: 'Quick Battle' }).click();
  await page.getByRole('link', { name: 'Create a Room' }).click();
  await page.getByRole('heading', { name: 'Create a Room' }).waitFor();
  await page.getByRole('radio', { name: 'Quick Battle' }).check();
  await page.getByRole('radio', { name: duration, exact: true }).check();
  if (passcode) await page.getByLabel('Choose a Passcode ( Only numbers, 1 - 4 digits )').fill(passcode);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const id = await enteredRoom(page);
  return { id, label: roomLabelOf(id) };
}

/** Waits until the page shows a room's screen (after Create, a 2 s redirect screen: SPEC §4): its id. */
export async function enteredRoom(page: Page): Promise<string> {
  await page.waitForURL(/\/quick-battle\/rooms\/[^/?#]+$/, { timeout: 15_000 });
  return new URL(page.url()).pathname.split('/').pop() ?? '';
}

/** The open room list's Play now: resolves with the id of the room the server seated the player in. */
export async function pressPlayNow(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Play now' }).click();
  return enteredRoom(page);
}

/**
 * The host creates a room, the guest enters it from the room list (an open room is joined after
 * 1 s), and the game starts: both see the dial.
 */
export async function meetInRoom(host: Person, guest: Person, duration: Duration): Promise<Room> {
  const room = await createRoom(host, { duration });
  await openRoomList(guest.page);
  await roomCard(guest.page, room)
    .getByRole('button', { name: `Enter Room ${room.label}` })
    .click();
  for (const person of [host, guest]) await dial(person.page).waitFor();
  return room;
}

/** Home → Quick Battle → Find a Room. */
export async function openRoomList(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByRole('link', { name: 'Quick Battle' }).click();
  await page.getByRole('link', { name: 'Find a Room' }).click();
  await page.getByRole('heading', { level: 1, name: 'Rooms' }).waitFor();
}

/** A room's card in the list, named by its title. */
export function roomCard(page: Page, room: Room): Locator {
  return page.getByRole('list', { name: 'Rooms' }).getByRole('listitem', { name: `Room ${room.label}` });
}

// ------------------------------------------------------------------------------------------------
// The game layer

// The rules as SPEC and DECISIONS.md state them, written out here on purpose: the scenarios hold the
// screens to the documents, not to game-rules, which the web app and the server run themselves.
/** DECISIONS.md: what each Support Oasis option makes of a move of `n` (the total never below 0). */
const OPTIONS = {
  Double: (total, n) => total + 2 * n,
  'Add extra 7': (total, n) => total + n + 7,
  'Add extra 1': (total, n) => total + n + 1,
  'Add extra 4': (total, n) => total + n + 4,
  'Negative 2 X': (total, n) => Math.max(0, total - 2 * n),
} satisfies Record<string, (total: number, n: number) => number>;
export type OptionLabel = keyof typeof OPTIONS;
export const OPTION_LABELS = Object.keys(OPTIONS) as OptionLabel[];

/** DECISIONS.md: the options offered by the total before the move. */
export function offeredAt(total: number): OptionLabel[] {
  if (total >= 198) return [];
  if (total >= 161) return ['Add extra 4', 'Add extra 1', 'Negative 2 X'];
  if (total >= 73) return ['Add extra 7', 'Add extra 4', 'Add extra 1'];
  return ['Double', 'Add extra 7', 'Add extra 1'];
}

/** DECISIONS.md: what a move does to the total. */
export function totalAfter(total: number, number: number, option: OptionLabel | null): number {
  return option ? OPTIONS[option](total, number) : total + number;
}

export async function readTotal(page: Page): Promise<number> {
  return Number(await page.getByRole('status', { name: 'Total' }).innerText());
}

/** The rounds display's count of moves. */
export async function readRounds(page: Page): Promise<number> {
  const heading = await page.getByRole('heading', { name: /^Rounds: \d+$/ }).innerText();
  return Number(heading.replace(/\D+/g, ''));
}

/** The newest line of the rounds display: "{who} picked {n} ({option}), AI {ai}, total {total}". */
export async function readLastMove(page: Page) {
  const text = await page
    .getByRole('region', { name: /^Rounds: / })
    .getByRole('listitem')
    .first()
    .innerText();
  const match = /^(.+) picked (\d)(?: \((.+)\))?, AI (\d), total (\d+)$/.exec(text.trim());
  if (!match) throw new Error(`unexpected move line: "${text}"`);
  const [, who = '', number = '', option, ai = '', total = ''] = match;
  return { who, number: Number(number), option: option ?? null, ai: Number(ai), total: Number(total) };
}

export async function isMyTurn(page: Page): Promise<boolean> {
  return page.getByText('Your turn', { exact: true }).isVisible();
}

export function dial(page: Page): Locator {
  return page.getByRole('group', { name: 'Dial' });
}

export function dialKey(page: Page, key: number | 'Random'): Locator {
  return dial(page).getByRole('button', { name: String(key), exact: true });
}

export function oasisPanel(page: Page): Locator {
  return page.getByRole('region', { name: 'Support Oasis' });
}

export function oasisOption(page: Page, label: OptionLabel): Locator {
  return oasisPanel(page).getByRole('button', { name: new RegExp(`^${label}\\b`) });
}

/** The Support Oasis options on offer, by label. */
export async function readOfferedOptions(page: Page): Promise<OptionLabel[]> {
  const texts = await oasisPanel(page).getByRole('button').allInnerTexts();
  return texts.map((text) => {
    const label = OPTION_LABELS.find((l) => text.trim().startsWith(l));
    if (!label) throw new Error(`unknown Support Oasis option "${text}"`);
    return label;
  });
}

/** A milestone as shown: its text, and whether it is drawn green (SPEC: reached ones are green). */
export async function readMilestone(page: Page, milestone: 73 | 161 | 198) {
  const item = page
    .getByRole('region', { name: 'Milestones' })
    .getByRole('listitem')
    .filter({ hasText: `Milestone ${milestone}` });
  const text = (await item.innerText()).replace(/\s+/g, ' ').trim();
  const color = await item.evaluate((el) => getComputedStyle(el).backgroundColor);
  const [r = 0, g = 0, b = 0] = (color.match(/\d+/g) ?? []).map(Number);
  return { reached: text.includes('You nailed this milestone'), text, green: g > r + 10 && g > b + 10 };
}
