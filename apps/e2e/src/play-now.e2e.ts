// Issue 15, items 1 and 2: Play now pairs two players, and a lone player plays a whole game against
// the AI that takes the empty seat after 30 s.
import type { Browser, Page } from '@playwright/test';
import {
  confirmRegistered,
  expectProfile,
  newcomer,
  openProfile,
  register,
  type ProfileCards,
} from './support/accounts';
import { DESKTOP, Person, PHONE } from './support/browser';
import { whoseTurn } from './support/game';
import {
  dialKey,
  isMyTurn,
  oasisOption,
  offeredAt,
  openRoomList,
  readRounds,
  readTotal,
  roomLabelOf,
} from './support/rooms';
import { expect, shot, test } from './support/scenario';
import { auditScreen } from './support/screens';
import { eventually } from './support/wait';

async function newPlayer(
  browser: Browser,
  label: string,
  viewport = DESKTOP,
): Promise<{ person: Person; name: string }> {
  const person = await Person.enter(browser, label, viewport);
  const account = newcomer(label);
  await register(person, account);
  await confirmRegistered(person.page, account.name);
  return { person, name: account.name };
}

/** The room list's Play now: resolves with the room the server seated the player in. */
async function pressPlayNow(page: Page, audit = false): Promise<string> {
  await openRoomList(page);
  if (audit) expect(await auditScreen(page, 'room-list-play-now')).toEqual([]);
  await page.getByRole('button', { name: 'Play now' }).click();
  await page.waitForURL(/\/quick-battle\/rooms\/[^/?#]+$/, { timeout: 15_000 });
  return new URL(page.url()).pathname.split('/').pop() ?? '';
}

test('20. Play now pairs two players who press it one after the other', async ({ browser }) => {
  const first = await newPlayer(browser, 'Nadia', DESKTOP);
  const second = await newPlayer(browser, 'Omar', PHONE);
  const roomId = await pressPlayNow(first.person.page, true);
  await shot(first.person, 'waiting-after-play-now');
  expect(await pressPlayNow(second.person.page)).toBe(roomId);
  // Both see the game start in the same room: exactly one of them has the turn.
  const turn = await whoseTurn({ person: first.person }, { person: second.person });
  await shot(turn.mover.person, 'paired-by-play-now');
  for (const { person } of [first, second]) {
    await person.page.getByText(roomLabelOf(roomId)).first().waitFor();
  }
});

test('21. A lone player creates a room with the AI option, the AI joins after 30 s and they play a whole game', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const { person, name } = await newPlayer(browser, 'Priya', DESKTOP);
  const { page } = person;
  await page.goto('/');
  await page.getByRole('link', { name: 'Quick Battle' }).click();
  await page.getByRole('link', { name: 'Create a Room' }).click();
  await page.getByRole('radio', { name: '14 s', exact: true }).check();
  await page.getByRole('checkbox', { name: 'Play the AI if nobody joins within 30 s' }).check();
  expect(await auditScreen(page, 'create-room-ai-option')).toEqual([]);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await page.waitForURL(/\/quick-battle\/rooms\/[^/?#]+$/, { timeout: 15_000 });
  await page.getByText(/The AI takes the seat in \d+ s/).waitFor();
  expect(await auditScreen(page, 'waiting-for-the-ai')).toEqual([]);

  // The AI takes the seat 30 s after the room started waiting (the game timer asks rooms).
  await page.getByRole('group', { name: 'Dial' }).waitFor({ timeout: 45_000 });
  expect(await auditScreen(page, 'playing-the-ai')).toEqual([]);
  const preference = ['Double', 'Add extra 7', 'Add extra 4', 'Add extra 1'] as const;
  const over = page.getByRole('button', { name: 'Play Again' });
  let aiMoves = 0;
  while (!(await over.isVisible())) {
    // Wait for my turn (the AI thinks 1.2 to 3.6 s) or the end of the game.
    await eventually(
      async () => {
        if (!(await isMyTurn(page)) && !(await over.isVisible())) throw new Error('waiting for my turn');
      },
      { timeout: 20_000 },
    );
    if (await over.isVisible()) break;
    const total = await readTotal(page);
    const option = preference.find((o) => offeredAt(total).includes(o));
    if (option) {
      const button = oasisOption(page, option);
      if ((await button.count()) > 0 && (await button.isEnabled())) await button.click();
    }
    const rounds = await readRounds(page);
    await dialKey(page, 9).click();
    await page
      .getByRole('heading', { name: `Rounds: ${rounds + 1}`, exact: true })
      .or(over)
      .first()
      .waitFor();
    if (rounds > 0) aiMoves++;
  }
  expect(aiMoves).toBeGreaterThan(3);
  expect(await auditScreen(page, 'game-over-against-the-ai')).toEqual([]);

  // A game against the AI counts as played, and pays no points or coins.
  await page.goto('/');
  await openProfile(page, name);
  await expectProfile(page, name, (shown) =>
    expect(shown).toMatchObject({
      playedGames: '1',
      assets: '0 points · 0 coins',
    } satisfies Partial<ProfileCards>),
  );
});
