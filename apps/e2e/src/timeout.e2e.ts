// A 14 s room where the player to move does nothing. The game timer ends the
// game by timeout before anyone moved, so DECISIONS.md "Aborted games" applies: it pays nothing.
import { expectProfile, newPlayer, openProfile, type Player, type ProfileCards } from './support/accounts';
import { DESKTOP, LAPTOP } from './support/browser';
import { whoseTurn } from './support/game';
import { createRoom, dial, openRoomList, readTotal, roomCard } from './support/rooms';
import { expect, shot, test } from './support/scenario';

/** A turn's deadline is turnStart + 14 s + 4 s; the timeout falls 1 s after it (DECISIONS.md). */
const TIMEOUT_AFTER_START_MS = 19_000;

test(
  '7. A 14 s room in which the player to move does nothing ends by timeout, aborted before both moved, ' +
    'and the profiles show no points, coins, played game or title for it',
  async ({ browser }) => {
    test.setTimeout(90_000);
    const dalia = await newPlayer(browser, 'Dalia', DESKTOP);
    const emre = await newPlayer(browser, 'Emre', LAPTOP);

    const room = await createRoom(dalia.person, { duration: '14 s' });
    await openRoomList(emre.person.page);
    const card = roomCard(emre.person.page, room);
    await card.waitFor();
    expect(await card.innerText()).toContain('14 s turns');
    await card.getByRole('button', { name: `Enter Room ${room.label}` }).click();
    // An open room is joined automatically after 1 s.
    await dial(emre.person.page).waitFor();
    const started = Date.now();
    await dial(dalia.person.page).waitFor();
    expect(await readTotal(dalia.person.page)).toBe(0);

    const { mover: idle, other: patient } = await whoseTurn(dalia, emre);

    // The turn timer counts down from at most 14 + 4 s on both screens.
    for (const { person } of [idle, patient]) {
      await expect(async () => {
        const text = await person.page.getByRole('timer', { name: 'Time left' }).innerText();
        const seconds = Number(/^(-?\d+) s$/.exec(text)?.[1]);
        expect(seconds).toBeGreaterThan(0);
        expect(seconds).toBeLessThanOrEqual(18);
      }).toPass({ timeout: 10_000 });
    }
    await shot(idle.person, 'my-turn-doing-nothing');
    await shot(patient.person, 'waiting-for-the-idle-player');

    // Nobody moves. The game ends by timeout, aborted: neither player had moved.
    const i = idle.person.page;
    const p = patient.person.page;
    await i
      .getByRole('heading', { name: 'Game aborted' })
      .waitFor({ timeout: TIMEOUT_AFTER_START_MS + 15_000 });
    await p.getByRole('heading', { name: 'Game aborted' }).waitFor();
    const endedAfter = Date.now() - started;
    // Not before the deadline has passed (the start was seen up to a moment after it happened).
    expect(endedAfter).toBeGreaterThan(TIMEOUT_AFTER_START_MS - 2_000);
    await i.getByText('You ran out of time.').waitFor();
    await p.getByText('Opponent ran out of time.').waitFor();
    await i.getByText(/no points, coins or played game/).waitFor();
    await shot(idle.person, 'aborted-by-own-timeout');
    await shot(patient.person, 'aborted-by-opponent-timeout');

    // DECISIONS.md "Aborted games": no played game, no points, no coins, no win, no title for either.
    type Earned = Pick<ProfileCards, 'playedGames' | 'assets' | 'points' | 'coins' | 'championTitles'>;
    const nothing: Earned = {
      playedGames: '0',
      assets: '0 points · 0 coins',
      points: '0',
      coins: '0',
      championTitles: 'none yet',
    };
    const expected: [Player, Earned][] = [
      [patient, nothing],
      [idle, nothing],
    ];
    for (const [player, cards] of expected) {
      const page = player.person.page;
      // The room screens have no header (SPEC §2), so back to Quick Battle, then the game menu.
      await page.getByRole('link', { name: 'Rooms' }).click();
      await page.getByRole('link', { name: 'Back to Quick Battle' }).click();
      await openProfile(page, player.account.name);
      await expectProfile(page, player.account.name, (shown) =>
        expect(shown).toEqual({
          playerName: player.account.name,
          premiumCategory: 'none',
          statusAndLevel: 'Rookie · Level 1',
          ...cards,
        } satisfies ProfileCards),
      );
      await shot(player.person, 'profile');
    }
  },
);
