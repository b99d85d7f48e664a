// A finished game appears in both players' My games (profile), and Verify replays
// it in the browser, checking the commitment and every AI number. Screenshots of My games at 390 and
// 1280 px go to .artifacts/screens/, and axe-core audits the profile with it at both widths.
import type { Locator, Page } from '@playwright/test';
import { newPlayer, openProfile, reloadProfileUntil } from './support/accounts';
import { DESKTOP, PHONE } from './support/browser';
import { playToTheEnd } from './support/game';
import { meetInRoom } from './support/rooms';
import { expect, shot, test } from './support/scenario';
import { auditScreen } from './support/axe';

/** The profile's My games once it lists a game (the history is built a moment after the game). */
async function myGames(page: Page, name: string): Promise<Locator> {
  await page.goto('/');
  await openProfile(page, name);
  const section = page.getByRole('region', { name: 'My games' });
  await reloadProfileUntil(page, name, () => section.getByRole('row').nth(1).waitFor({ timeout: 2_000 }));
  return section;
}

/** The cells of a game's row, by column header. */
async function readGame(section: Locator, index = 0): Promise<Record<string, string>> {
  // Text content, not innerText: the headers are upper-cased by CSS only.
  const headers = await section.getByRole('columnheader').allTextContents();
  const row = section.getByRole('row').nth(index + 1);
  // As screen readers get them: without the copies a phone shows under the opponent and result.
  const cells = await row.getByRole('cell').evaluateAll((elements) =>
    elements.map((element) => {
      const copy = element.cloneNode(true) as HTMLElement;
      copy.querySelectorAll('[aria-hidden="true"]').forEach((hidden) => hidden.remove());
      return copy.textContent ?? '';
    }),
  );
  return Object.fromEntries(headers.map((header, i) => [header.trim(), (cells[i] ?? '').trim()]));
}

test('31. My games verifies a finished game: it replays the moves and checks the commitment and every AI number', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const host = await newPlayer(browser, 'Hana', DESKTOP);
  const guest = await newPlayer(browser, 'Idris', PHONE);
  await meetInRoom(host.person, guest.person, '60 s');

  const { mover: winner, other: loser, moves: played } = await playToTheEnd(host, guest);
  await winner.person.page.getByRole('heading', { name: 'You won!' }).waitFor();

  const moves: string[] = [];
  for (const [player, opponent, result] of [
    [winner, loser, 'Won'],
    [loser, winner, 'Lost'],
  ] as const) {
    const section = await myGames(player.person.page, player.account.name);
    const game = await readGame(section);
    expect(game).toMatchObject({
      Opponent: opponent.account.name,
      Result: result,
      'End reason': 'Reached 198',
    });
    expect(game['Date']).toMatch(/^\d{1,2} \w{3} \d{4}, \d\d:\d\d$/);
    moves.push(game['Moves'] ?? '');
  }
  // The same game for both, of at least the 11 moves 198 takes at 18 a move at most: the moves played.
  expect(moves[0]).toBe(moves[1]);
  expect(Number(moves[0])).toBeGreaterThanOrEqual(11);
  expect(moves[0]).toBe(String(played));

  // Verify, in the winner's browser: the engine replays every move and checks the AI numbers.
  const page = winner.person.page;
  const section = page.getByRole('region', { name: 'My games' });
  await section
    .getByRole('button', { name: `Verify the game against ${loser.account.name}`, exact: false })
    .click();
  const report = section.getByRole('status');
  await report.getByText('Every AI number of this game checks out.').waitFor();
  expect(await report.innerText()).toContain('Every move follows the rules.');
  expect(await report.innerText()).toContain(`Replayed ${moves[0]} moves.`);
  await shot(winner.person, 'my-games-verified');

  // Not scrolled first: a full-page screenshot of a scrolled page draws the sticky header mid-page.
  await page.evaluate(() => window.scrollTo(0, 0));
  expect(await auditScreen(page, 'my-games')).toEqual([]);
  for (const player of [host, guest]) await player.person.leave();
});
