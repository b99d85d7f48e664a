// The leaderboard ranks players by points, then wins, then name; each player sees
// their own rank highlighted; it follows the games as they end, without a reload. Screenshots of it
// at 390 and 1280 px go to .artifacts/screens/, and axe-core audits it at both widths.
import type { Page } from '@playwright/test';
import { newPlayer, type Player } from './support/accounts';
import { DESKTOP, LAPTOP } from './support/browser';
import { playKey, whoseTurn } from './support/game';
import { meetInRoom } from './support/rooms';
import { expect, shot, test } from './support/scenario';
import { auditScreen } from './support/axe';

/** Home → Leaderboard, in a tab of the player's own (their main tab plays). */
async function openLeaderboard(player: Player): Promise<Page> {
  const tab = await player.person.openTab();
  await tab.goto('/');
  await tab.getByRole('link', { name: 'Leaderboard' }).click();
  await tab.getByRole('heading', { level: 1, name: 'Leaderboard' }).waitFor();
  return tab;
}

interface OwnRank {
  rank: number;
  /** The row's (or the "Your rank" panel's) text. */
  text: string;
}

/** The signed-in player's rank as the leaderboard shows it: their highlighted row, or "Your rank". */
async function readOwnRank(page: Page): Promise<OwnRank> {
  const row = page.locator('tr[aria-current="true"]');
  const panel = page.getByRole('region', { name: 'Your rank' });
  await row.or(panel).first().waitFor();
  if ((await row.count()) > 0) {
    const text = await row.innerText();
    return { rank: Number(await row.getByRole('cell').first().innerText()), text };
  }
  const text = await panel.innerText();
  return { rank: Number(/#(\d+)/.exec(text)?.[1]), text };
}

test('30. The leaderboard shows the winner moving up, live, with each player’s own rank highlighted', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  // Equal on 0 points and 0 wins, players go by name: the future winner (Z…) starts behind
  // the future loser (A…), whatever other players the stack holds.
  const loser = await newPlayer(browser, 'Aamir', DESKTOP);
  const winner = await newPlayer(browser, 'Zaid', LAPTOP);
  const [loserBoard, winnerBoard] = [await openLeaderboard(loser), await openLeaderboard(winner)];
  const before = { winner: await readOwnRank(winnerBoard), loser: await readOwnRank(loserBoard) };
  expect(before.winner.rank).toBeGreaterThan(before.loser.rank);
  expect(before.winner.text).toContain(winner.account.name);
  await shot(winner.person, 'leaderboard-before', winnerBoard);

  // A game: two moves, then the loser leaves it (the winner gets 25 points and a win).
  const room = await meetInRoom(winner.person, loser.person, '60 s');
  for (let i = 0; i < 2; i++) {
    const { mover } = await whoseTurn(winner, loser);
    await playKey(mover.person.page, 5);
  }
  const l = loser.person.page;
  await l.getByRole('button', { name: 'Exit', exact: true }).click();
  await l
    .getByRole('dialog', { name: `Sure you want to leave the room ${room.label}?` })
    .getByRole('button', { name: 'Exit', exact: true })
    .click();
  // A game left after it started closes the room (SPEC §4); the winner is told why.
  await winner.person.page.getByText('A player left, so the room was closed.').waitFor();

  // The open leaderboards follow without a reload: the winner moves up, past the loser.
  let after = before;
  await expect(async () => {
    after = { winner: await readOwnRank(winnerBoard), loser: await readOwnRank(loserBoard) };
    expect(after.winner.rank).toBeLessThan(after.loser.rank);
    // Each board refetches on its own notice: wait for the winner's to show the paid game too.
    expect(after.winner.text).toMatch(/\b25\b/);
  }).toPass({ timeout: 10_000, intervals: [250] });
  expect(after.winner.rank).toBeLessThan(before.winner.rank);
  console.log(
    `leaderboard: the winner moved from #${before.winner.rank} to #${after.winner.rank}, ` +
      `the loser from #${before.loser.rank} to #${after.loser.rank}`,
  );

  // The winner's own rank is highlighted: their row on its page, after "Show my page" if needed.
  const myPage = winnerBoard.getByRole('button', { name: 'Show my page' });
  if ((await myPage.count()) > 0) {
    await shot(winner.person, 'leaderboard-own-rank-off-page', winnerBoard);
    await myPage.click();
  }
  const row = winnerBoard.locator('tr[aria-current="true"]');
  await row.waitFor();
  expect(await row.innerText()).toContain(`${winner.account.name} (you)`);

  expect(await auditScreen(winnerBoard, 'leaderboard')).toEqual([]);
  for (const player of [winner, loser]) await player.person.leave();
});
