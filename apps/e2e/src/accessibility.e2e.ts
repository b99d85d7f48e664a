// Accessibility: axe-core audits every route, every dialog and each layer of the room
// screen (lobby, game, game over, for players and for a watching visitor) at 390 and 1280 px, and
// finds no violation. Each scenario prints how many screens it audited and what it found.
// Screenshots at both widths of the dialogs (.artifacts/screens/21-accessibility/) and the room
// layers (.artifacts/screens/22-accessibility/).
import type { Page } from '@playwright/test';
import {
  confirmRegistered,
  newcomer,
  newPlayer,
  register,
  submitLogin,
  type Player,
} from './support/accounts';
import { axeViolations, AxeReport, type ScreenKind } from './support/axe';
import { DESKTOP, Person, PHONE } from './support/browser';
import { playToTheEnd, whoseTurn } from './support/game';
import { createRoom, dial, openRoomList, roomCard, type Room } from './support/rooms';
import { expect, shot, test } from './support/scenario';

/** SPEC §2's routes (and an unknown path, which shows home), as a visitor reaches them. */
const VISITOR_ROUTES = [
  '/',
  '/splash',
  '/login',
  '/join',
  '/forget-password',
  '/quick-battle',
  '/quick-battle/rooms',
  '/tournaments',
  '/tournaments/quote',
  '/tournaments/world-cup',
  '/tournaments/coninental-cup',
  '/tournaments/coninental-cup/europe',
  '/tournaments/country-cup',
  '/tournaments/country-cup/france',
  '/tournaments/city-cup',
  '/tournaments/city-cup/paris',
  '/tournaments/event-cup',
  '/tournaments/event-cup/event-2',
  '/no-such-page',
];
/** The routes that need a logged-in user. */
const PLAYER_ROUTES = ['/profile', '/quick-battle/create'];

const PASSCODE = '2468';

test.use({ screens: true });

let ada: Player;
let bo: Player;
let visitor: Person;
let room: Room;

/** A screen is ready once its main heading shows and nothing is loading any more. */
async function ready(page: Page): Promise<void> {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll('[role="status"]')).every((e) => e.textContent !== 'Loading…'),
  );
}

/** Ends an audit scenario: prints what was audited, then expects no violation. */
function conclude(report: AxeReport): void {
  console.log(report.summary());
  expect(report.violations()).toEqual([]);
}

test.describe.serial('axe-core audits, the room layers continuing from the routes and dialogs', () => {
  test('21. axe-core finds no violation on any route or dialog at 390 and 1280 px', async ({ browser }) => {
    test.setTimeout(240_000);
    const report = new AxeReport();
    /** Audits a dialog at both widths, with a screenshot at each. */
    const dialog = (person: Person, what: string) =>
      report.audit(person.page, 'dialog', what, (width) =>
        shot(person, `${what.replace(/\W+/g, '-')}-${width}px`),
      );
    visitor = await Person.enter(browser, 'visitor', DESKTOP);
    const v = visitor.page;

    // The audit sees what it should: an image without a text alternative is a violation.
    await v.goto('/');
    await ready(v);
    await v.evaluate(() => {
      const image = document.createElement('img');
      image.width = 24;
      image.height = 24;
      document.querySelector('main')?.append(image);
    });
    expect((await axeViolations(v)).map((found) => found.rule)).toContain('image-alt');

    for (const route of VISITOR_ROUTES) {
      await v.goto(route);
      await ready(v);
      await report.audit(v, 'route', route);
    }

    // The visitor's dialogs: the game menu, a refused login, the forgotten-password notice.
    await v.goto('/');
    await v.getByRole('button', { name: 'Game menu' }).click();
    await v.getByRole('dialog', { name: 'Game menu' }).waitFor();
    await dialog(visitor, 'game menu');
    await v.keyboard.press('Escape');
    await v.getByRole('dialog', { name: 'Game menu' }).waitFor({ state: 'hidden' });

    await submitLogin(v, { email: 'nobody.here@oasis.test', password: 'Wrong12345' });
    await v.getByRole('alertdialog', { name: 'You have failed to log in, try again' }).waitFor();
    await dialog(visitor, 'login failed');

    await v.goto('/forget-password');
    await v.getByLabel('E-mail').fill('nobody.here@oasis.test');
    await v.getByRole('button', { name: 'Send' }).click();
    await v.getByRole('dialog', { name: 'Please, check your E-mail.' }).waitFor();
    await dialog(visitor, 'check your e-mail');

    // Two newcomers: the registration notice, then the player's own routes and dialogs.
    ada = { person: await Person.enter(browser, 'ada', DESKTOP), account: newcomer('Ada') };
    await register(ada.person, ada.account);
    await dialog(ada.person, 'account created');
    await confirmRegistered(ada.person.page, ada.account.name);
    bo = await newPlayer(browser, 'Bo', PHONE);

    const a = ada.person.page;
    for (const route of PLAYER_ROUTES) {
      await a.goto(route);
      await ready(a);
      await report.audit(a, 'route', `${route} (logged in)`);
    }
    await a.goto('/quick-battle/rooms');
    await ready(a);
    await report.audit(a, 'route', '/quick-battle/rooms (logged in)');

    await a.goto('/profile');
    await ready(a);
    await a.getByRole('button', { name: 'Log out' }).click();
    const logout = a.getByRole('dialog', { name: 'Are you sure you want to log out?' });
    await logout.waitFor();
    await dialog(ada.person, 'log out');
    await logout.getByRole('button', { name: 'Cancel' }).click();
    await logout.waitFor({ state: 'hidden' });
    await a.getByRole('tab', { name: 'Edit' }).click();
    await report.audit(a, 'route', '/profile (edit panel)');
    await a.getByRole('button', { name: 'Delete account' }).click();
    const remove = a.getByRole('alertdialog', { name: 'Confirm to delete account?' });
    await remove.waitFor();
    await dialog(ada.person, 'delete account');
    await remove.getByRole('button', { name: 'Cancel' }).click();
    await remove.waitFor({ state: 'hidden' });

    conclude(report);
  });

  test(
    '22. axe-core finds no violation in the lobby, game and game-over layers, for players and a visitor, ' +
      'nor in the room dialogs, at 390 and 1280 px',
    async () => {
      test.setTimeout(240_000);
      const report = new AxeReport();
      /** Audits a person's room screen at both widths, with a screenshot at each. */
      const layer = (person: Person, what: string, kind: ScreenKind = 'room layer') =>
        report.audit(person.page, kind, `${what} (${person.label})`, (width) =>
          shot(person, `${kind === 'dialog' ? 'dialog-' : ''}${what}-${width}px`),
        );

      // Lobby: the creator waits; a visitor chooses between playing and watching; a player is
      // asked for the passcode, and told when it is wrong.
      room = await createRoom(ada.person, { duration: '60 s', passcode: PASSCODE });
      const a = ada.person.page;
      await a.getByRole('heading', { name: 'Waiting for an opponent' }).waitFor();
      await layer(ada.person, 'lobby-waiting');
      await a.getByRole('button', { name: 'Exit' }).click();
      const exit = a.getByRole('dialog', { name: `Sure you want to leave the room ${room.label}?` });
      await exit.waitFor();
      await layer(ada.person, 'exit', 'dialog');
      await exit.getByRole('button', { name: 'Cancel' }).click();
      await exit.waitFor({ state: 'hidden' });

      const v = visitor.page;
      await v.goto(`/quick-battle/rooms/${room.id}`);
      await v.getByRole('heading', { name: 'Play or watch?' }).waitFor();
      await layer(visitor, 'lobby-play-or-watch');
      await v.getByRole('button', { name: 'Watch' }).click();

      const b = bo.person.page;
      await openRoomList(b);
      await roomCard(b, room)
        .getByRole('button', { name: `Enter Room ${room.label}` })
        .click();
      const passcode = b.getByLabel('Passcode', { exact: true });
      await passcode.waitFor();
      await layer(bo.person, 'lobby-passcode');
      await passcode.fill('1357');
      await b.getByRole('button', { name: 'Join', exact: true }).click();
      await b.getByText('Oops, try again!').waitFor();
      await expect(b.getByRole('button', { name: 'Join', exact: true })).toBeEnabled();
      await layer(bo.person, 'lobby-wrong-passcode');
      await passcode.fill(PASSCODE);
      await b.getByRole('button', { name: 'Join', exact: true }).click();

      // Game: the player to move, the player who waits, the visitor watching, the settings.
      for (const page of [a, b, v]) await page.getByRole('heading', { name: 'Rounds: 0' }).waitFor();
      await dial(a).waitFor();
      const turn = await whoseTurn(ada, bo);
      await layer(turn.mover.person, 'game-my-turn');
      await layer(turn.other.person, 'game-opponents-turn');
      await layer(visitor, 'game-watching');
      const m = turn.mover.person.page;
      await m.getByRole('button', { name: 'Settings' }).click();
      const settings = m.getByRole('dialog', { name: 'GAME SETTINGS' });
      await settings.waitFor();
      await layer(turn.mover.person, 'settings', 'dialog');
      await settings.getByRole('button', { name: 'Close' }).click();
      await settings.waitFor({ state: 'hidden' });

      // Game over: the winner, the loser and the visitor.
      const end = await playToTheEnd(ada, bo);
      await end.mover.person.page.getByRole('heading', { name: 'You won!' }).waitFor();
      await end.other.person.page.getByRole('heading', { name: 'You lost' }).waitFor();
      await v.getByRole('heading', { name: `${end.mover.account.name} won` }).waitFor();
      await layer(end.mover.person, 'game-over-won');
      await layer(end.other.person, 'game-over-lost');
      await layer(visitor, 'game-over-watching');

      conclude(report);
      for (const person of [ada.person, bo.person, visitor]) await person.leave();
    },
  );
});
