import { expect, type Locator, type Page } from '@playwright/test';
import type { Person } from './browser';
import { dialKey, isMyTurn, offeredAt, oasisOption, readRounds, readTotal, type OptionLabel } from './rooms';

/** Two people in one game: whose turn it is, and who waits. */
export interface Turn<P extends { person: Person }> {
  mover: P;
  other: P;
}

/** Waits until exactly one of the two players has the turn. */
export async function whoseTurn<P extends { person: Person }>(a: P, b: P): Promise<Turn<P>> {
  let turn: Turn<P> = { mover: a, other: b };
  await expect(async () => {
    const [mine, theirs] = await Promise.all([isMyTurn(a.person.page), isMyTurn(b.person.page)]);
    expect(mine, 'exactly one of the two players has the turn').not.toBe(theirs);
    turn = mine ? { mover: a, other: b } : { mover: b, other: a };
  }).toPass({ timeout: 10_000 });
  return turn;
}

/** Plays `key` (plain) and waits until the mover's screen counts the move. */
export async function playKey(page: Page, key: number): Promise<void> {
  const rounds = await readRounds(page);
  await dialKey(page, key).click();
  await page.getByRole('heading', { name: `Rounds: ${rounds + 1}`, exact: true }).waitFor();
}

/** The strongest options first: the biggest legal step is a 9 with the first one on offer. */
export const BIGGEST_STEP: readonly OptionLabel[] = ['Double', 'Add extra 7', 'Add extra 4', 'Add extra 1'];

/**
 * The player whose turn it is on `page` plays the biggest legal step (a 9 with the strongest option
 * on offer, or a plain 9 when its uses are spent); resolves once the move is counted, with whether
 * it ended the game.
 */
export async function playBiggestStep(page: Page): Promise<{ over: boolean }> {
  const total = await readTotal(page);
  const option = BIGGEST_STEP.find((o) => offeredAt(total).includes(o));
  if (option) {
    const button = oasisOption(page, option);
    // An option whose uses are spent is not offered: then a plain 9.
    if ((await button.count()) > 0 && (await button.isEnabled())) {
      await button.click();
      await expect(button).toHaveAttribute('aria-pressed', 'true');
    }
  }
  const rounds = await readRounds(page);
  await dialKey(page, 9).click();
  const over = page.getByRole('button', { name: 'Play Again' });
  const next = page.getByRole('heading', { name: `Rounds: ${rounds + 1}`, exact: true });
  await over.or(next).first().waitFor();
  return { over: await over.isVisible() };
}

/**
 * Plays the biggest legal step until the total reaches 198; resolves with the winner's turn (the
 * mover of the last move) and how many moves it played.
 */
export async function playToTheEnd<P extends { person: Person }>(
  a: P,
  b: P,
): Promise<Turn<P> & { moves: number }> {
  for (let moves = 1; ; moves++) {
    const turn = await whoseTurn(a, b);
    if ((await playBiggestStep(turn.mover.person.page)).over) return { ...turn, moves };
  }
}

/** An element's box in the window (CSS pixels), failing clearly when it is not rendered. */
export async function boxOf(locator: Locator, what: string) {
  const box = await locator.boundingBox();
  if (!box) throw new Error(`${what} is not rendered`);
  return box;
}

export type Box = Awaited<ReturnType<typeof boxOf>>;

/** Whether two boxes share any area (touching edges do not count). */
export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}
