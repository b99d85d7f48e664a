// Play now pairs two players, and a lone player plays a whole game against
// the AI that takes the empty seat after 30 s.
import { expectProfile, newPlayer, openProfile, type ProfileCards } from './support/accounts';
import { DESKTOP, PHONE } from './support/browser';
import { playBiggestStep, whoseTurn } from './support/game';
import {
  dial,
  enteredRoom,
  openRoomList,
  pressPlayNow,
  readLastMove,
  readRounds,
  roomLabelOf,
} from './support/rooms';
import { expect, shot, test } from './support/scenario';
import { auditScreen } from './support/axe';

/** The AI takes the empty seat of a room created with its option this long after it started waiting. */
const AI_JOINS_AFTER_MS = 30_000;

test('20. Play now pairs two players who press it one after the other', async ({ browser }) => {
  const first = await newPlayer(browser, 'Nadia', DESKTOP);
  const second = await newPlayer(browser, 'Omar', PHONE);
  await openRoomList(first.person.page);
  expect(await auditScreen(first.person.page, 'room-list-play-now')).toEqual([]);
  const roomId = await pressPlayNow(first.person.page);
  await shot(first.person, 'waiting-after-play-now');
  await openRoomList(second.person.page);
  expect(await pressPlayNow(second.person.page)).toBe(roomId);
  // Both see the game start in the same room: exactly one of them has the turn.
  const turn = await whoseTurn(first, second);
  await shot(turn.mover.person, 'paired-by-play-now');
  for (const { person } of [first, second]) {
    await person.page.getByText(roomLabelOf(roomId)).first().waitFor();
  }
});

test('21. A lone player creates a room with the AI option, the AI joins after 30 s and they play a whole game', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const { person, account } = await newPlayer(browser, 'Priya', DESKTOP);
  const { page } = person;
  await page.goto('/');
  await page.getByRole('link', { name: 'Quick Battle' }).click();
  await page.getByRole('link', { name: 'Create a Room' }).click();
  await page.getByRole('radio', { name: '14 s', exact: true }).check();
  await page.getByRole('checkbox', { name: 'Play the AI if nobody joins within 30 s' }).check();
  expect(await auditScreen(page, 'create-room-ai-option')).toEqual([]);
  const created = Date.now();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await enteredRoom(page);
  await page.getByText(/The AI takes the seat in \d+ s/).waitFor();
  expect(await auditScreen(page, 'waiting-for-the-ai')).toEqual([]);

  // The AI takes the seat 30 s after the room started waiting (the game timer asks rooms), not
  // before: the room started waiting after the click.
  await dial(page).waitFor({ timeout: 45_000 });
  expect(Date.now() - created).toBeGreaterThanOrEqual(AI_JOINS_AFTER_MS);
  expect(await auditScreen(page, 'playing-the-ai')).toEqual([]);

  // The player makes the biggest steps; the AI answers each one, and its move shows as the opponent's.
  const over = page.getByRole('button', { name: 'Play Again' });
  let aiMoves = 0;
  for (;;) {
    // My turn (the AI thinks 1.2 to 3.6 s) or the end of the game.
    await page.getByText('Your turn', { exact: true }).or(over).first().waitFor({ timeout: 20_000 });
    if (await over.isVisible()) break;
    if ((await readRounds(page)) > 0) {
      expect((await readLastMove(page)).who).toBe('Opponent');
      aiMoves++;
    }
    if ((await playBiggestStep(page)).over) break;
  }
  expect(aiMoves).toBeGreaterThan(3);
  expect(await auditScreen(page, 'game-over-against-the-ai')).toEqual([]);

  // A game against the AI counts as played, and pays no points or coins.
  await page.goto('/');
  await openProfile(page, account.name);
  await expectProfile(page, account.name, (shown) =>
    expect(shown).toMatchObject({
      playedGames: '1',
      assets: '0 points · 0 coins',
    } satisfies Partial<ProfileCards>),
  );
});
