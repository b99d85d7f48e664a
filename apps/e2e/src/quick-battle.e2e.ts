// One story: two newcomers register, meet in a passcode room, play a
// whole game to 198 while a visitor watches, ask for a rematch, and a third user finds the room full.
import {
  confirmRegistered,
  expectProfile,
  newcomer,
  newPlayer,
  register,
  type Player,
  type ProfileCards,
} from './support/accounts';
import { DESKTOP, LAPTOP, Person, PHONE } from './support/browser';
import { BIGGEST_STEP, whoseTurn, type Turn } from './support/game';
import {
  createRoom,
  dial,
  dialKey,
  oasisOption,
  oasisPanel,
  offeredAt,
  OPTION_LABELS,
  openRoomList,
  readLastMove,
  readMilestone,
  readOfferedOptions,
  readRounds,
  readTotal,
  roomCard,
  totalAfter,
  type OptionLabel,
  type Room,
} from './support/rooms';
import { expect, shot, test } from './support/scenario';

const PASSCODE = '4821';
const WRONG_PASSCODE = '1234';
/**
 * Scenarios 3 and 4 play the game, every move checked on three screens: 18 s and 7 s on a quiet
 * machine. The budget is for one many times oversubscribed (120 s ran out at a load average of
 * 12-25 on 2 cores).
 */
const PLAYING_BUDGET_MS = 240_000;

let amira: Player;
let bashir: Player;
let visitor: Person;
let room: Room;

const players = (): Player[] => [amira, bashir];

/** Everyone looking at the game: both players, and the visitor once they watch. */
const screens = (): Person[] => [amira.person, bashir.person, ...(visitor ? [visitor] : [])];

// ------------------------------------------------------------------------------------------------
// Playing: one move at a time, checked on every screen.

interface Plan {
  key: number | 'Random';
  option: OptionLabel | null;
}

interface Played {
  turn: Turn<Player>;
  plan: Plan;
  before: number;
  after: number;
  over: boolean;
}

/** Checks what every screen shows of the milestones at this total. */
async function expectMilestones(total: number): Promise<void> {
  for (const person of screens()) {
    for (const milestone of [73, 161, 198] as const) {
      const view = await readMilestone(person.page, milestone);
      const reached = total >= milestone;
      expect({ who: person.label, milestone, reached: view.reached, green: view.green }).toEqual({
        who: person.label,
        milestone,
        reached,
        green: reached,
      });
      expect(view.text).toContain(reached ? 'You nailed this milestone' : "You're not here yet");
    }
  }
}

/**
 * Plays one move: checks the mover is not offered options that are illegal at this total (they are
 * absent) and the other player cannot pick, picks, then checks every screen shows the move, the
 * same total, and the milestones.
 */
async function play(choose: (total: number, offered: OptionLabel[]) => Plan): Promise<Played> {
  const turn = await whoseTurn(amira, bashir);
  const { mover, other } = turn;
  const m = mover.person.page;
  const before = await readTotal(m);
  const rounds = await readRounds(m);

  const offered = await readOfferedOptions(m);
  for (const label of OPTION_LABELS) {
    if (!offeredAt(before).includes(label)) expect(offered).not.toContain(label);
  }
  // Only the player to move can pick: the other one's dial and options are disabled.
  expect(await dialKey(other.person.page, 9).isDisabled()).toBe(true);
  expect(await dialKey(other.person.page, 'Random').isDisabled()).toBe(true);
  for (const option of await oasisPanel(other.person.page).getByRole('button').all()) {
    expect(await option.isDisabled()).toBe(true);
  }

  const plan = choose(before, offered);
  if (plan.option) {
    const option = oasisOption(m, plan.option);
    await option.click();
    await expect(option).toHaveAttribute('aria-pressed', 'true');
  }
  await dialKey(m, plan.key).click();

  const expected = plan.key === 'Random' ? null : totalAfter(before, plan.key, plan.option);
  if (expected !== null && expected >= 198) {
    return { turn, plan, before, after: expected, over: true };
  }

  // Every screen shows the new move; the mover as 'You', the other player as 'Opponent', the
  // visitor by name.
  for (const person of screens()) {
    await person.page.getByRole('heading', { name: `Rounds: ${rounds + 1}`, exact: true }).waitFor();
  }
  const line = await readLastMove(m);
  expect(line.who).toBe('You');
  expect(line.option).toBe(plan.option);
  if (plan.key === 'Random') {
    expect(line.number).toBeGreaterThanOrEqual(1);
    expect(line.number).toBeLessThanOrEqual(9);
  } else {
    expect(line.number).toBe(plan.key);
  }
  const after = totalAfter(before, line.number, plan.option);
  expect(line.total).toBe(after);
  expect(await readLastMove(other.person.page)).toEqual({ ...line, who: 'Opponent' });
  if (visitor) expect(await readLastMove(visitor.page)).toEqual({ ...line, who: mover.account.name });
  for (const person of screens()) {
    await expect.poll(() => readTotal(person.page), { message: person.label }).toBe(after);
  }
  await expectMilestones(after);
  return { turn, plan, before, after, over: false };
}

/** The biggest legal step: a 9 with the strongest option on offer. */
function biggestStep(_total: number, offered: OptionLabel[]): Plan {
  return { key: 9, option: BIGGEST_STEP.find((o) => offered.includes(o)) ?? null };
}

const tierOf = (total: number): 1 | 2 | 3 => (total >= 161 ? 3 : total >= 73 ? 2 : 1);

test.describe.serial('Two newcomers, from registration to a full room', () => {
  test('1. Two newcomers register through /join, see the success dialog and land on their profiles with 0 points', async ({
    browser,
  }) => {
    amira = { person: await Person.enter(browser, 'amira', DESKTOP), account: newcomer('Amira') };
    bashir = { person: await Person.enter(browser, 'bashir', LAPTOP), account: newcomer('Bashir') };
    await Promise.all(
      players().map(async ({ person, account }) => {
        await register(person, account);
        await shot(person, 'account-created');
        await confirmRegistered(person.page, account.name);
        await expectProfile(person.page, account.name, (shown) =>
          expect(shown).toEqual({
            playerName: account.name,
            playedGames: '0',
            assets: '0 points · 0 coins',
            premiumCategory: 'none',
            championTitles: 'none yet',
            statusAndLevel: 'Rookie · Level 1',
            points: '0',
            coins: '0',
          } satisfies ProfileCards),
        );
        await shot(person, 'profile');
      }),
    );
  });

  test('2. A creates a 32 s room with a passcode; B finds it available, enters a wrong passcode, then the right one', async () => {
    room = await createRoom(amira.person, { duration: '32 s', passcode: PASSCODE });
    const a = amira.person.page;
    await a.getByRole('heading', { name: 'Waiting for an opponent' }).waitFor();
    expect(await a.getByRole('heading', { level: 1 }).innerText()).toBe(`Room ${room.label}`);
    await shot(amira.person, 'waiting-for-opponent');

    const b = bashir.person.page;
    await openRoomList(b);
    const card = roomCard(b, room);
    await card.waitFor();
    const cardText = await card.innerText();
    for (const part of ['Enter · available', '1/2 players', '32 s turns', `by ${amira.account.name}`])
      expect(cardText).toContain(part);
    await card.getByRole('img', { name: 'Passcode required' }).waitFor();
    // The switch narrows the list to rooms with one free spot: this one stays.
    const freeSpot = b.getByRole('switch', { name: 'Only rooms with one free spot' });
    await freeSpot.click();
    await expect(freeSpot).toHaveAttribute('aria-checked', 'true');
    await card.waitFor();
    await shot(bashir.person, 'room-list');

    await card.getByRole('button', { name: `Enter Room ${room.label}` }).click();
    await b.getByRole('heading', { name: 'Passcode required' }).waitFor();
    const passcode = b.getByLabel('Passcode', { exact: true });
    await passcode.fill(WRONG_PASSCODE);
    await b.getByRole('button', { name: 'Join', exact: true }).click();
    await b.getByRole('alert').filter({ hasText: 'Oops, try again!' }).waitFor();
    await shot(bashir.person, 'wrong-passcode');

    await passcode.fill(PASSCODE);
    await b.getByRole('button', { name: 'Join', exact: true }).click();
    await dial(b).waitFor();
  });

  test('5. A visitor, not logged in, watches the room live and read-only', async ({ browser }) => {
    visitor = await Person.enter(browser, 'visitor', PHONE);
    const v = visitor;
    await openRoomList(v.page);
    const card = roomCard(v.page, room);
    await card.waitFor();
    expect(await card.innerText()).toContain('Closed · unavailable');
    expect(await card.innerText()).toContain('2/2 players');
    await card.getByRole('link', { name: `Watch Room ${room.label}` }).click();
    await v.page.getByRole('status').filter({ hasText: 'You are watching this game.' }).waitFor();
    const playersList = await v.page.getByRole('list', { name: 'Players' }).innerText();
    expect(playersList).toContain(amira.account.name);
    expect(playersList).toContain(bashir.account.name);
    await v.page.getByText(/^(Amira|Bashir)\w+'s turn$/).waitFor();
    // Read-only: no dial, no Support Oasis, no way to take a seat.
    expect(await dial(v.page).count()).toBe(0);
    expect(await oasisPanel(v.page).count()).toBe(0);
    expect(await v.page.getByRole('button', { name: 'Play', exact: true }).count()).toBe(0);
    expect(await readTotal(v.page)).toBe(0);
    await shot(v, 'watching');
    // Its live view is checked after every move of scenarios 3 and 4.
  });

  test(
    "3. They play through the dial with Random and an Oasis option in each tier, see each other's moves, " +
      'agree on the totals, and milestones turn green at 73 and 161',
    async () => {
      test.setTimeout(PLAYING_BUDGET_MS);
      // The game starts on both screens (and the visitor's).
      for (const person of screens()) {
        const p = person.page;
        await expect.poll(() => readTotal(p)).toBe(0);
        await p.getByText('Game Started', { exact: true }).waitFor();
        expect(await readRounds(p)).toBe(0);
      }
      await expectMilestones(0);
      const first = await whoseTurn(amira, bashir);
      await first.other.person.page.getByText("Opponent's turn", { exact: true }).waitFor();
      await shot(first.mover.person, 'game-started-my-turn');
      await shot(first.other.person, 'game-started-opponents-turn');

      // Random first; then an Oasis option on every move, the biggest step each time, until the
      // total is in the last tier, where Negative 2 X takes a little off instead of winning already.
      const optionTiers = new Set<number>();
      const crossed = new Set<number>();
      let toggled = false;
      let played = await play(() => ({ key: 'Random', option: null }));
      await shot(played.turn.other.person, 'saw-random-move');
      while (!optionTiers.has(3)) {
        const total = played.after;
        if (!toggled && offeredAt(total).includes('Double')) {
          // Clicking a selected option again goes back to a plain pick.
          const { mover } = await whoseTurn(amira, bashir);
          const double = oasisOption(mover.person.page, 'Double');
          await double.click();
          await expect(double).toHaveAttribute('aria-pressed', 'true');
          await double.click();
          await expect(double).toHaveAttribute('aria-pressed', 'false');
          toggled = true;
        }
        played = await play((t, offered) =>
          tierOf(t) === 3 && offered.includes('Negative 2 X')
            ? { key: 1, option: 'Negative 2 X' }
            : biggestStep(t, offered),
        );
        expect(played.over).toBe(false);
        if (played.plan.option) optionTiers.add(tierOf(played.before));
        for (const milestone of [73, 161]) {
          if (played.after >= milestone && !crossed.has(milestone)) {
            crossed.add(milestone);
            await shot(played.turn.mover.person, `milestone-${milestone}`);
            await shot(played.turn.other.person, `milestone-${milestone}`);
          }
        }
      }
      expect([...optionTiers].sort()).toEqual([1, 2, 3]);
      expect([...crossed].sort()).toEqual([161, 73]);
      await shot(visitor, 'watching-tier-3');
    },
  );

  test(
    '4. The game reaches 198: one sees the won state, the other the lost state; both press Play Again, ' +
      "see 'Ready To Play', and a new game starts",
    async () => {
      test.setTimeout(PLAYING_BUDGET_MS);
      let played: Played;
      do played = await play(biggestStep);
      while (!played.over);
      const winner = played.turn.mover;
      const loser = played.turn.other;
      const w = winner.person.page;
      const l = loser.person.page;

      await w.getByRole('heading', { name: 'You won!' }).waitFor();
      await l.getByRole('heading', { name: 'You lost' }).waitFor();
      await visitor.page.getByRole('heading', { name: `${winner.account.name} won` }).waitFor();
      await w.getByText('You brought the total to 198 or more.').waitFor();
      await l.getByText('Opponent brought the total to 198 or more.').waitFor();
      for (const person of screens()) {
        await person.page.getByText(`Total: ${played.after}`, { exact: true }).waitFor();
      }
      await shot(winner.person, 'won');
      await shot(loser.person, 'lost');
      await shot(visitor, 'game-over');

      // The rewards of DECISIONS.md, in a second tab (the game tab stays on the ready screen).
      const expectations: [Player, Partial<ProfileCards>][] = [
        [winner, { playedGames: '1', assets: '25 points · 10 coins', points: '25', coins: '10' }],
        [loser, { playedGames: '1', assets: '5 points · 1 coin', points: '5', coins: '1' }],
      ];
      for (const [player, expected] of expectations) {
        const tab = await player.person.openTab();
        await tab.goto('/profile');
        await expectProfile(tab, player.account.name, (shown) =>
          expect(shown).toMatchObject({
            ...expected,
            championTitles: 'none yet', // blitzWinner needs a 14 s room
            statusAndLevel: 'Rookie · Level 1',
          }),
        );
        await shot(player.person, 'profile-after-game', tab);
        await tab.close();
      }

      // Play Again: the loser first; both screens show them ready, the winner still thinking.
      await l.getByRole('button', { name: 'Play Again' }).click();
      for (const page of [l, w]) {
        const ready = page.getByRole('list', { name: 'Ready To Play' });
        await expect(async () => {
          const rows = await ready.getByRole('listitem').allInnerTexts();
          const flat = rows.map((r) => r.replace(/\s+/g, ' ').trim());
          const loserRow = page === l ? 'You Ready To Play' : 'Opponent Ready To Play';
          const winnerRow = page === w ? 'You Thinking...' : 'Opponent Thinking...';
          expect(flat.sort()).toEqual([loserRow, winnerRow].sort());
        }).toPass({ timeout: 10_000 });
      }
      expect(await l.getByRole('button', { name: 'Play Again' }).isDisabled()).toBe(true);
      await shot(loser.person, 'ready-to-play');
      await shot(winner.person, 'opponent-ready');

      // The winner agrees: a new game starts at once, on every screen.
      await w.getByRole('button', { name: 'Play Again' }).click();
      for (const person of screens()) {
        await person.page.getByRole('heading', { name: 'Rounds: 0', exact: true }).waitFor();
        expect(await readTotal(person.page)).toBe(0);
        await person.page.getByText('Game Started', { exact: true }).waitFor();
      }
      await expectMilestones(0);
      const next = await whoseTurn(amira, bashir);
      expect(await dialKey(next.mover.person.page, 'Random').isEnabled()).toBe(true);
      await shot(winner.person, 'new-game');
      await shot(loser.person, 'new-game');
      await shot(visitor, 'new-game');
    },
  );

  test("6. A third user trying to join the full room sees 'Game already started — you can't join this room'", async ({
    browser,
  }) => {
    const { person: cyrus } = await newPlayer(browser, 'Cyrus', DESKTOP);
    await openRoomList(cyrus.page);
    const card = roomCard(cyrus.page, room);
    await card.waitFor();
    expect(await card.innerText()).toContain('Closed · unavailable');
    await card.getByRole('button', { name: `Closed Room ${room.label}` }).click();
    const overlay = cyrus.page.getByRole('alert').filter({
      hasText: "Game already started — you can't join this room.",
    });
    await overlay.waitFor();
    await shot(cyrus, 'room-full');
    // It goes away by itself (SPEC: 2.5 s), and Cyrus is still on the list, not in the room.
    await overlay.waitFor({ state: 'hidden', timeout: 5_000 });
    expect(new URL(cyrus.page.url()).pathname).toBe('/quick-battle/rooms');

    // Following a shared link instead only lets Cyrus watch.
    await cyrus.page.goto(`/quick-battle/rooms/${room.id}`);
    await cyrus.page.getByRole('status').filter({ hasText: 'You are watching this game.' }).waitFor();
    expect(await dial(cyrus.page).count()).toBe(0);
    await shot(cyrus, 'watching-instead');
  });
});
