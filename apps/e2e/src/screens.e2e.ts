// The main screens at phone and desktop width, as a player sees them. One
// player on a phone, one at a desktop: home, the room list, a running game and the profile. Every
// screen must fit its window's width (no sideways scrolling); the screenshots are for people to
// look at (.artifacts/e2e/9-screens/). Against `npm start`:
//   npm run e2e -- --url http://127.0.0.1:8080 -g "phone and desktop"
import type { Page } from '@playwright/test';
import { newPlayer, openProfile } from './support/accounts';
import { DESKTOP, type Person, PHONE } from './support/browser';
import { whoseTurn } from './support/game';
import { createRoom, dial, dialKey, openRoomList, readRounds, roomCard } from './support/rooms';
import { expect, shot, test } from './support/scenario';

/** How far the page is wider than its window, in CSS pixels (0 when it fits). */
function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** Screenshots the person's screen once it fits the window's width. */
async function capture(person: Person, what: string, page: Page = person.page): Promise<void> {
  expect({ screen: what, who: person.label, overflowPx: await overflow(page) }).toEqual({
    screen: what,
    who: person.label,
    overflowPx: 0,
  });
  await shot(person, what, page);
}

test('9. Home, the room list, a running game and the profile fit phone and desktop widths', async ({
  browser,
}) => {
  const phone = await newPlayer(browser, 'Sami', PHONE, 'phone');
  const desktop = await newPlayer(browser, 'Tara', DESKTOP, 'desktop');
  const both = [phone, desktop];

  for (const { person } of both) {
    await person.page.goto('/');
    await person.page.getByRole('heading', { name: 'Race to 198 across the dunes' }).waitFor();
    await capture(person, 'home');
  }

  // The desktop player opens a room; both look at the list, the desktop player in another tab.
  const room = await createRoom(desktop.person, { duration: '60 s' });
  const desktopList = await desktop.person.openTab();
  for (const [person, page] of [
    [phone.person, phone.person.page],
    [desktop.person, desktopList],
  ] as const) {
    await openRoomList(page);
    await roomCard(page, room).waitFor();
    await capture(person, 'room-list', page);
  }
  await desktopList.close();

  // The phone player enters (an open room is joined after 1 s); one move is played.
  await roomCard(phone.person.page, room)
    .getByRole('button', { name: `Enter Room ${room.label}` })
    .click();
  for (const { person } of both) await dial(person.page).waitFor();
  const { mover } = await whoseTurn(phone, desktop);
  await dialKey(mover.person.page, 7).click();
  for (const { person } of both) {
    await expect.poll(() => readRounds(person.page)).toBe(1);
    await capture(person, 'running-game');
  }

  // The room screen has no game menu: the profile is reached from home, as players do.
  for (const { person, account } of both) {
    await person.page.goto('/');
    await openProfile(person.page, account.name);
    await capture(person, 'profile');
  }
  for (const { person } of both) await person.leave();
});
