// How long after a player's click the opponent (and a visitor) see the move. It
// prints the figures (docs/benchmarks.md records them); a speed is never a pass/fail condition here.
import type { Page } from '@playwright/test';
import { newPlayer } from './support/accounts';
import { DESKTOP, Person } from './support/browser';
import { whoseTurn } from './support/game';
import { dialKey, openRoomList, pressPlayNow, readRounds } from './support/rooms';
import { expect, test } from './support/scenario';

const MOVES = 24;

/** Records, in the page, when the Total card's text last changed (Date.now(): one clock for all pages). */
async function watchTotal(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __seenAt?: number; __totalObserver?: MutationObserver };
    w.__totalObserver?.disconnect();
    const total = document.querySelector('output[aria-labelledby="total-label"]');
    if (!total) throw new Error('no Total card');
    w.__totalObserver = new MutationObserver(() => (w.__seenAt = Date.now()));
    w.__totalObserver.observe(total, { childList: true, characterData: true, subtree: true });
    w.__seenAt = 0;
  });
}

/**
 * Stamps, in every page of the person from now on, when a move request left (a frame on the room
 * socket, or fetch of a PATCH while it is not open; each counted) and when a room push arrived (an SSE "room" or "room-moves" event, before the app sees it), so the figure splits into
 * the way to the server and back out, and the page's own work.
 */
async function stampNetwork(person: Person): Promise<void> {
  await person.page.context().addInitScript(() => {
    const w = window as unknown as {
      __sentAt?: number;
      __pushAt?: number;
      __socketSends?: number;
      __httpSends?: number;
    };
    const fetch = window.fetch.bind(window);
    window.fetch = (input, init) => {
      if (init?.method === 'PATCH') {
        w.__sentAt = Date.now();
        w.__httpSends = (w.__httpSends ?? 0) + 1;
      }
      return fetch(input, init);
    };
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (this: WebSocket, data) {
      w.__sentAt = Date.now();
      w.__socketSends = (w.__socketSends ?? 0) + 1;
      return send.call(this, data);
    };
    const add = EventSource.prototype.addEventListener;
    EventSource.prototype.addEventListener = function (this: EventSource, type: string, ...rest: unknown[]) {
      if (type === 'room' || type === 'room-moves') add.call(this, type, () => (w.__pushAt = Date.now()));
      return (add as (...args: unknown[]) => void).call(this, type, ...rest);
    } as typeof EventSource.prototype.addEventListener;
  });
  await person.page.reload();
}

/** Records, in the page, when the next click happened (captured before the app handles it). */
async function stampNextClick(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __clickAt?: number };
    w.__clickAt = 0;
    document.addEventListener('pointerdown', () => (w.__clickAt = Date.now()), { capture: true, once: true });
  });
}

const read = (
  page: Page,
  name: '__seenAt' | '__clickAt' | '__sentAt' | '__pushAt' | '__socketSends' | '__httpSends',
) => page.evaluate((key) => (window as unknown as Record<string, number>)[key] ?? 0, name);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

test('30. Prints how long after the click the opponent and a visitor see a move (two players and a visitor, real browsers)', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const [a, b] = await Promise.all([newPlayer(browser, 'Lena'), newPlayer(browser, 'Marek')]);
  await openRoomList(a.person.page);
  const roomId = await pressPlayNow(a.person.page);
  await openRoomList(b.person.page);
  expect(await pressPlayNow(b.person.page)).toBe(roomId);
  const visitor = await Person.enter(browser, 'visitor', DESKTOP);
  await visitor.page.goto(`/quick-battle/rooms/${roomId}`);
  await visitor.page.getByRole('status', { name: 'Total' }).waitFor();

  for (const person of [a.person, b.person, visitor]) await stampNetwork(person);
  await visitor.page.getByRole('status', { name: 'Total' }).waitFor();

  const toOpponent: number[] = [];
  const toVisitor: number[] = [];
  const clickToSent: number[] = [];
  const sentToPush: number[] = [];
  const pushToScreen: number[] = [];
  for (let i = 0; i < MOVES; i++) {
    const { mover, other } = await whoseTurn(a, b);
    await Promise.all([
      watchTotal(other.person.page),
      watchTotal(visitor.page),
      stampNextClick(mover.person.page),
    ]);
    const rounds = await readRounds(mover.person.page);
    // Small picks: the game lasts the whole sample.
    await dialKey(mover.person.page, 1).click();
    await other.person.page.getByRole('heading', { name: `Rounds: ${rounds + 1}`, exact: true }).waitFor();
    await visitor.page.getByRole('heading', { name: `Rounds: ${rounds + 1}`, exact: true }).waitFor();
    const [clickAt, sentAt] = await Promise.all([
      read(mover.person.page, '__clickAt'),
      read(mover.person.page, '__sentAt'),
    ]);
    const [seen, pushAt, watched] = await Promise.all([
      read(other.person.page, '__seenAt'),
      read(other.person.page, '__pushAt'),
      read(visitor.page, '__seenAt'),
    ]);
    if (clickAt > 0 && seen > 0) toOpponent.push(seen - clickAt);
    if (clickAt > 0 && watched > 0) toVisitor.push(watched - clickAt);
    if (clickAt > 0 && sentAt >= clickAt) clickToSent.push(sentAt - clickAt);
    if (sentAt > 0 && pushAt >= sentAt) sentToPush.push(pushAt - sentAt);
    if (pushAt > 0 && seen >= pushAt) pushToScreen.push(seen - pushAt);
  }
  let onSocket = 0;
  let overHttp = 0;
  for (const player of [a, b]) {
    onSocket += await read(player.person.page, '__socketSends');
    overHttp += await read(player.person.page, '__httpSends');
  }
  const summary = (label: string, values: number[]) => {
    const sorted = [...values].sort((x, y) => x - y);
    return `${label}: ${sorted.length} moves, p50 ${percentile(sorted, 50)} ms, p95 ${percentile(sorted, 95)} ms, max ${sorted.at(-1)} ms`;
  };
  console.log(
    [
      'click to screen',
      summary('opponent', toOpponent),
      summary('visitor', toVisitor),
      "the opponent's figure in parts:",
      summary("  click to request sent (mover's page)", clickToSent),
      summary('  request sent to push received (network, gateway, rooms)', sentToPush),
      summary("  push received to screen (opponent's page)", pushToScreen),
      `moves sent on the room socket: ${onSocket} of ${onSocket + overHttp}`,
    ].join('\n  '),
  );
  // The socket opens on each player's first edit (its join), so every move after it goes there.
  expect(onSocket).toBe(MOVES);
  // Every move was seen: the figures cover the whole sample.
  expect(toOpponent).toHaveLength(MOVES);
  expect(toVisitor).toHaveLength(MOVES);
});
