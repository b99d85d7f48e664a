// Screen fit: a phone-sized game fits one screen, the move announcement covers neither
// the total nor the clock nor a milestone, and on a desktop the opponent's-turn column is the live
// waiting panel at full size. One player on a 390×844 phone, one at a 1280 px desktop.
// Screenshots: .artifacts/screens/20-phone/.
import type { Page } from '@playwright/test';
import { newPlayer } from './support/accounts';
import { DESKTOP, PHONE } from './support/browser';
import { boxOf, overlaps, playKey, whoseTurn, type Box } from './support/game';
import { dial, meetInRoom, readTotal } from './support/rooms';
import { expect, shot, test } from './support/scenario';

test.use({ screens: true });

/** The TOTAL card and the clock card (the label and the number), and the whole dial. */
function gameParts(page: Page) {
  return {
    total: page.getByRole('status', { name: 'Total' }).locator('xpath=..'),
    clock: page.getByRole('timer', { name: 'Time left' }).locator('xpath=..'),
    dial: dial(page),
    milestones: page.getByRole('region', { name: 'Milestones' }).getByRole('listitem'),
  };
}

/** The window's own box: what a person sees without scrolling. */
async function windowBox(page: Page): Promise<Box & { scrollY: number }> {
  return page.evaluate(() => ({
    x: 0,
    y: 0,
    width: window.innerWidth,
    height: window.innerHeight,
    scrollY: window.scrollY,
  }));
}

const inside = (box: Box, frame: Box): boolean =>
  box.x >= frame.x &&
  box.y >= frame.y &&
  box.x + box.width <= frame.x + frame.width &&
  box.y + box.height <= frame.y + frame.height;

/**
 * The "You picked / AI picked" announcement of the move of `picked`: the one of the move before
 * it may still show for its last moments when this move is made.
 */
const announcement = (page: Page, picked: number) =>
  page
    .getByRole('status')
    .filter({ hasText: /AI picked \d/ })
    .filter({ hasText: new RegExp(`(?<!AI )picked ${picked}(?!\\d)`) });

/** While the announcement shows: which of the total, the clock and the milestones it covers. */
async function coveredByAnnouncement(page: Page, who: string, picked: number): Promise<string[]> {
  const shown = await boxOf(announcement(page, picked), `${who}'s announcement`);
  const parts = gameParts(page);
  const covered: string[] = [];
  if (overlaps(shown, await boxOf(parts.total, 'the total'))) covered.push('total');
  if (overlaps(shown, await boxOf(parts.clock, 'the clock'))) covered.push('clock');
  for (const [i, milestone] of (await parts.milestones.all()).entries()) {
    if (overlaps(shown, await boxOf(milestone, 'a milestone'))) covered.push(`milestone ${i + 1}`);
  }
  return covered;
}

test(
  '20. A phone-sized game fits one screen: total, clock and dial without scrolling; the announcement ' +
    "covers none of them; the desktop's waiting panel uses its whole column",
  async ({ browser }) => {
    test.setTimeout(90_000);
    const phone = await newPlayer(browser, 'Pia', PHONE, 'phone');
    const desk = await newPlayer(browser, 'Dov', DESKTOP, 'desktop');
    await meetInRoom(desk.person, phone.person, '60 s');

    // Make it the phone's turn: the desktop moves first if it has the turn.
    let turn = await whoseTurn(phone, desk);
    if (turn.mover === desk) {
      await playKey(desk.person.page, 3);
      turn = await whoseTurn(phone, desk);
    }
    expect(turn.mover).toBe(phone);

    // 1. On the phone, while it is its turn, the total, the clock and the whole dial are in the
    //    window, and the page was not scrolled to get there.
    const p = phone.person.page;
    await expect(dial(p).getByRole('button', { name: '5' })).toBeEnabled();
    const frame = await windowBox(p);
    expect(frame).toMatchObject({ width: 390, height: 844, scrollY: 0 });
    const parts = gameParts(p);
    const phoneFits = {
      total: inside(await boxOf(parts.total, 'the total'), frame),
      clock: inside(await boxOf(parts.clock, 'the clock'), frame),
      dial: inside(await boxOf(parts.dial, 'the dial'), frame),
    };
    await shot(phone.person, 'my-turn-on-a-phone', p, { windowOnly: true });

    // 2. The phone moves: on both screens the announcement covers neither total, clock nor milestone.
    const before = await readTotal(p);
    await dial(p).getByRole('button', { name: '4', exact: true }).click();
    const covered: Record<string, string[]> = {};
    for (const { person } of [phone, desk]) {
      await announcement(person.page, 4).waitFor();
      covered[person.label] = await coveredByAnnouncement(person.page, person.label, 4);
      await shot(person, 'announcement', person.page, { windowOnly: true });
    }
    await expect.poll(() => readTotal(desk.person.page)).toBe(before + 4);

    // 3. The desktop moves; while the phone thinks, the desktop's waiting panel (the current number
    //    and the animation) fills its column: beside the dial, as tall as it, the animation as wide
    //    as the panel.
    await playKey(desk.person.page, 2);
    const d = desk.person.page;
    const pause = d.getByRole('region', { name: 'Opponent is thinking' });
    await pause.waitFor();
    await expect(pause.getByText(String(before + 6), { exact: true })).toBeVisible();
    const panel = await boxOf(pause, 'the waiting panel');
    const dialBox = await boxOf(dial(d), 'the dial');
    const animation = await boxOf(
      pause.getByRole('img', { name: 'A camel strolling past the oasis while you wait' }),
      'the animation',
    );
    await shot(desk.person, 'opponents-turn-on-a-desktop');
    const waitingPanel = {
      besideTheDial: panel.x > dialBox.x + dialBox.width,
      asTallAsTheDial: panel.height >= dialBox.height,
      animationFillsThePanel: animation.width >= panel.width * 0.8,
    };

    expect({ phoneFits, covered, waitingPanel }).toEqual({
      phoneFits: { total: true, clock: true, dial: true },
      covered: { phone: [], desktop: [] },
      waitingPanel: { besideTheDial: true, asTallAsTheDial: true, animationFillsThePanel: true },
    });

    for (const { person } of [phone, desk]) await person.leave();
  },
);
