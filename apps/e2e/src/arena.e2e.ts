// Event cup arenas (DECISIONS.md "Event cup arenas"): four players join event-9's arena (the
// end-to-end stack starts one every 90 s for 45 s: SHORT_ARENAS in tools/scripts/lib/stack.ts),
// are paired and play every game they are given until the arena ends; a visitor's event page
// follows the standings live; at the end the winner's profile shows the Events winner title, the
// prize, and the arena's games marked with the event's name.
// axe-core audits the event page and the arena room at 390 and 1280 px (.artifacts/screens/).
import type { EventArenaResponse } from '@oasis198/contracts';
import type { Page } from '@playwright/test';
import { expectProfile, newPlayer, type Player, reloadProfileUntil } from './support/accounts';
import { auditScreen } from './support/axe';
import { DESKTOP, LAPTOP, PHONE, Person } from './support/browser';
import { dialKey } from './support/rooms';
import { expect, shot, test } from './support/scenario';

// Four games' pages, a visitor and the stack share the machine with whatever else runs on it.
test.use({ actionTimeout: 30_000 });

const EVENT_PAGE = '/tournaments/event-cup/event-9';
const ROOM_PATH = /\/tournament\/rooms\/([^/?#]+)$/;

interface Standing {
  rank: number;
  name: string;
  score: number;
  games: number;
}

/** A standings table as shown, by its caption ('Standings', or the last arena's final ones). */
async function readStandings(page: Page, caption: string): Promise<Standing[]> {
  // One call for the whole table: the page is read every second while four games run beside it.
  const rows = await page
    .getByRole('table', { name: caption, exact: true })
    .locator('tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? '')),
    );
  return rows.map(([rank = '', name = '', score = '', games = '']) => ({
    rank: Number(rank),
    name,
    score: Number(score),
    games: Number(games),
  }));
}

/** The event's arena as the API answers it (its end time, to know when the players stop). */
async function arenaOf(page: Page): Promise<EventArenaResponse> {
  const answer = await page.request.get('/api/tournaments/events/event-9');
  expect(answer.ok()).toBe(true);
  return (await answer.json()) as EventArenaResponse;
}

/** The arena room the page shows, or null. */
const roomOf = (page: Page): string | null => ROOM_PATH.exec(new URL(page.url()).pathname)?.[1] ?? null;

/**
 * Plays one arena game on the player's page until it is over, its room closes or the arena ends: a
 * plain 9 on each of their turns, two browser calls a move, as four games' pages share a busy
 * machine and a turn lasts 14 s.
 */
async function playRoom(page: Page, room: string, endsAt: number): Promise<void> {
  const over = page.getByRole('button', { name: 'Play Again' });
  const myTurn = page.getByText('Your turn', { exact: true });
  // A room that closes (the opponent moved on to their next game) sends its player to the event page.
  const eventPage = page.getByRole('heading', { level: 1, name: 'Event 9' });
  const gone = () => roomOf(page) !== room;
  for (;;) {
    await over
      .or(myTurn)
      .or(eventPage)
      .first()
      .waitFor({ timeout: 30_000 })
      .catch(() => undefined);
    if (gone() || (await over.isVisible())) return;
    if (!(await myTurn.isVisible())) continue;
    // At the arena's end the players stop: their last game ends within a turn, by its clock.
    if (Date.now() >= endsAt) return;
    try {
      await dialKey(page, 9).click();
      await myTurn.waitFor({ state: 'hidden' });
    } catch (error) {
      // A turn run out on a busy machine ends the game mid-move: that is its end, not a fault.
      if (gone() || (await over.isVisible())) return;
      throw error;
    }
  }
}

/**
 * Plays every arena game the player is given, each in the room the arena takes them to (from the
 * event page or from their last game's room), until none comes by the arena's end: resolves with
 * the rooms they played in.
 */
async function playArena(player: Player, endsAt: number): Promise<string[]> {
  const { page } = player.person;
  const rooms: string[] = [];
  for (;;) {
    const last = rooms.at(-1);
    const paired = await page
      .waitForURL((url) => ROOM_PATH.test(url.pathname) && !(last && url.pathname.endsWith(last)), {
        timeout: Math.max(1, endsAt - Date.now() + 3_000),
      })
      .then(() => true)
      .catch(() => false);
    const room = roomOf(page);
    if (!paired || !room) return rooms;
    rooms.push(room);
    await playRoom(page, room, endsAt);
  }
}

test('40. Four players play an arena, its standings follow live, and its winner gets the title and the coins', async ({
  browser,
}) => {
  // Up to 90 s for the next arena to start, its 45 s, its last games and the prizes.
  test.setTimeout(300_000);
  const players = [
    await newPlayer(browser, 'Amal', DESKTOP),
    await newPlayer(browser, 'Badr', LAPTOP),
    await newPlayer(browser, 'Cyra', PHONE),
    await newPlayer(browser, 'Dina', DESKTOP),
  ];
  const coinsBefore = new Map<Player, number>();
  for (const player of players) {
    // Without the waiting animations: four games' pages share two cores with the stack.
    await player.person.page.emulateMedia({ reducedMotion: 'reduce' });
    await expectProfile(player.person.page, player.account.name, (cards) =>
      coinsBefore.set(player, Number(cards.coins)),
    );
  }
  const visitor = await Person.enter(browser, 'visitor', DESKTOP);
  const watch = visitor.page;
  await watch.emulateMedia({ reducedMotion: 'reduce' });

  // The event page as a player sees it, audited while nothing can move them away from it.
  const phone = players[2] as Player;
  await phone.person.page.goto(EVENT_PAGE);
  await phone.person.page.getByRole('button', { name: 'Join', exact: true }).waitFor();
  expect(await auditScreen(phone.person.page, 'arena event page')).toEqual([]);

  // Joining in the pause between two arenas: all four are free when the next one starts.
  await watch.goto(EVENT_PAGE);
  await watch.getByRole('heading', { level: 1, name: 'Event 9' }).waitFor();
  const timer = watch.getByRole('timer');
  await expect(async () => {
    await watch.reload();
    await expect(timer).toHaveText(/^Starts in 00:[2-5]\d$/, { timeout: 1_000 });
  }).toPass({ timeout: 100_000, intervals: [1_000] });
  const next = (await arenaOf(watch)).arena;
  const [startsAt, endsAt] = [Date.parse(next?.startsAt ?? ''), Date.parse(next?.endsAt ?? '')];
  await Promise.all(
    players.map(async ({ person }) => {
      await person.page.goto(EVENT_PAGE);
      await person.page.getByRole('button', { name: 'Join', exact: true }).click();
      await person.page.getByText('You are in.').waitFor();
    }),
  );
  await expect
    .poll(async () => (await readStandings(watch, 'Standings')).length, { timeout: 30_000 })
    .toBe(4);
  await shot(visitor, 'standings-before');

  // The start: each player is taken to their room, two rooms of two, and plays from there on.
  const played = players.map((p) => playArena(p, endsAt));
  // Awaited below, after the standings: a failure meanwhile is reported there, not as unhandled.
  for (const game of played) game.catch(() => undefined);
  const start = { timeout: startsAt - Date.now() + 30_000 };
  await Promise.all(players.map(({ person }) => person.page.waitForURL(ROOM_PATH, start)));
  const firstRooms = new Set(players.map((p) => roomOf(p.person.page)));
  expect(firstRooms.size).toBe(2);
  console.log(`arena: paired in 2 rooms, ${Math.round((endsAt - Date.now()) / 1000)} s left`);

  // An arena room under its arena's bar, as a spectator sees it while its game runs: audited
  // from a page of its own, so the players' pages keep playing. (A finished arena room sends its
  // players back to the event page, so none is left to audit at the end.)
  const spectator = await Person.enter(browser, 'spectator', DESKTOP);
  await spectator.page.emulateMedia({ reducedMotion: 'reduce' });
  await spectator.page.goto(`/tournament/rooms/${[...firstRooms][0]}`);
  await spectator.page.getByRole('complementary', { name: 'Arena' }).waitFor();
  await shot(spectator, 'arena-room');
  expect(await auditScreen(spectator.page, 'arena room')).toEqual([]);
  await spectator.leave();

  // The visitor's standings follow the games without a reload: the running arena's, or once it
  // has ended (a busy machine's games can outlast its 45 s), the final ones as its games end.
  const caption = 'Final standings of the last arena';
  const shown = async () => [
    ...(await readStandings(watch, 'Standings')),
    ...(await readStandings(watch, caption)),
  ];
  await expect
    .poll(async () => (await shown()).some((s) => s.score > 0), {
      timeout: endsAt + 40_000 - Date.now(),
      intervals: [1_000],
    })
    .toBe(true);
  await shot(visitor, 'standings-live');
  const roomsPlayed = await Promise.all(played);
  console.log(`arena: games per player ${roomsPlayed.map((r) => r.length).join(', ')}`);

  // The end: the final standings stay on the event page (the visitor's, still without a reload).
  // Once the arena is settled, the player on top has the Events winner title and the first prize
  // besides their games' coins (DECISIONS: +10 a win, +1 a loss unless by timeout or leaving, +100
  // the first place); until then the standings may still change, and both are read again.
  let final: Standing[] = [];
  let winner: Player | undefined;
  let coins = 0;
  await expect(async () => {
    final = await readStandings(watch, caption);
    const top = final[0];
    winner = players.find((p) => p.account.name === top?.name);
    if (!top || !winner) throw new Error(`no winner among the final standings ${JSON.stringify(final)}`);
    expect(top.score).toBeGreaterThan(0);
    // Their games reach 198 in some 15 moves, far from the 250 of a draw: the score is twice the wins.
    const wins = Math.floor(top.score / 2);
    const base = (coinsBefore.get(winner) ?? 0) + 100 + 10 * wins;
    await winner.person.page.goto('/profile');
    await expectProfile(winner.person.page, winner.account.name, (cards) => {
      expect(cards.championTitles).toContain('Events winner');
      coins = Number(cards.coins);
      expect(coins).toBeGreaterThanOrEqual(base);
      expect(coins).toBeLessThanOrEqual(base + (top.games - wins));
    });
  }).toPass({ timeout: 90_000, intervals: [2_000] });
  await shot(visitor, 'final-standings');
  console.log(`arena: final ${final.map((s) => `#${s.rank} ${s.name} ${s.score}/${s.games}`).join(', ')}`);
  expect(final.map((s) => s.rank)).toEqual([1, 2, 3, 4]);
  if (!winner) throw new Error('no winner');
  const w = winner.person.page;
  console.log(`arena: the winner ${winner.account.name} has ${coins} coins, the Events winner title`);
  // Their game history marks the arena's games with the event's name.
  await reloadProfileUntil(w, winner.account.name, () =>
    expect(w.getByRole('region', { name: 'My games' }).getByText('in Event 9').first()).toBeVisible({
      timeout: 1_000,
    }),
  );
  await shot(winner.person, 'winner-profile');

  for (const p of [...players.map((p) => p.person), visitor]) await p.leave();
});
