import type { PlayedGame, PlayedGameDetail } from '@oasis198/contracts';
import { screen, within } from '@testing-library/react';
import { fakeApi } from '../testing/fake-network';
import { AI_SEED, ALICE, BOB, playedGame, reward, ROOM_ID } from '../testing/fixtures';
import { renderApp } from '../testing/render';
import { formatGameDate } from './MyGames';

const REWARD = `GET /api/rewards/${ALICE._id}`;
const GAMES = `GET /api/rewards/${ALICE._id}/games`;
const GAME = `GET /api/rewards/${ALICE._id}/games/:gameId`;

const summary = ({ moveList: _moves, ...game }: PlayedGameDetail): PlayedGame => game;

/** The profile with these games in the history, each served with its moves by GET .../games/{gameId}. */
async function renderGames(games: PlayedGameDetail[]) {
  const api = fakeApi({
    [REWARD]: { body: reward() },
    [GAMES]: { body: games.map(summary) },
    [GAME]: (req) => {
      const game = games.find((g) => g.gameId === decodeURIComponent(req.path.split('/').pop() ?? ''));
      return game ? { body: game } : { status: 404, body: { message: 'gone', code: 'NOT_FOUND' } };
    },
  });
  const view = renderApp('/profile', { user: ALICE });
  const section = await screen.findByRole('region', { name: 'My games' });
  await within(section).findByRole('table');
  return { ...view, api, section };
}

/** A row's cells as screen readers get them: without the copies shown on phones only (aria-hidden). */
const cells = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .map((cell) => {
      const copy = cell.cloneNode(true) as HTMLElement;
      for (const hidden of copy.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
      return copy.textContent;
    });

describe('My games (/profile)', () => {
  it('lists the last games: date, opponent or the AI, result, end reason, moves and a Verify button', async () => {
    const won = playedGame();
    const ai = playedGame({
      gameId: `${ROOM_ID}:2`,
      finishedAt: '2026-01-02T09:05:00.000Z',
      opponent: { id: `ai:${ROOM_ID}`, name: 'AI' },
      result: 'lost',
      endReason: 'timeout',
      moves: 3,
    });
    const draw = playedGame({ gameId: `${ROOM_ID}:3`, result: 'draw', endReason: 'moveLimit', moves: 250 });
    const { section } = await renderGames([ai, won, draw]);
    const table = within(section).getByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Date', 'Opponent', 'Result', 'End reason', 'Moves', 'Fair play']);
    const rows = within(table).getAllByRole('row').slice(1);
    const [second, first] = [formatGameDate(ai.finishedAt), formatGameDate(won.finishedAt)];
    // In the player's own time zone; in UTC, "2 Jan 2026, 09:05".
    expect(second).toMatch(/^\d{1,2} Jan 2026, \d\d:05$/);
    expect(rows.map(cells)).toEqual([
      [second, 'the AI', 'Lost', 'Time ran out', '3', 'Verify'],
      [first, BOB.name, won.result === 'won' ? 'Won' : 'Lost', 'Reached 198', String(won.moves), 'Verify'],
      [first, BOB.name, 'Draw', 'Move limit', '250', 'Verify'],
    ]);
    expect(within(rows[0] as HTMLElement).getByRole('button')).toHaveAccessibleName(
      `Verify the game against the AI, ${second}`,
    );
  });

  it("marks an arena game with its event's name under the opponent", async () => {
    const arena = playedGame({ gameId: `${ROOM_ID}:2`, event: 'Event 9' });
    const { section } = await renderGames([arena, playedGame()]);
    const rows = within(within(section).getByRole('table')).getAllByRole('row').slice(1);
    expect(rows.map((row) => cells(row)[1])).toEqual([`${BOB.name}in Event 9`, BOB.name]);
    expect(within(rows[0] as HTMLElement).getByText('in Event 9')).toBeVisible();
  });

  it('lists an aborted game as Aborted, with why it ended, and verifies its few moves', async () => {
    const aborted = playedGame({ result: 'aborted', endReason: 'left', moves: 0, moveList: [] });
    const { user, section } = await renderGames([aborted]);
    const [row] = within(within(section).getByRole('table')).getAllByRole('row').slice(1);
    expect(cells(row as HTMLElement)).toEqual([
      formatGameDate(aborted.finishedAt),
      BOB.name,
      'Aborted',
      'A player left',
      '0',
      'Verify',
    ]);
    await user.click(within(section).getByRole('button', { name: /^Verify/ }));
    const report = await within(section).findByRole('status');
    expect(report).toHaveTextContent('Every AI number of this game checks out.');
    expect(report).toHaveTextContent('Every move follows the rules.');
  });

  it('fails a game listed as aborted whose moves show both players moved', async () => {
    const real = playedGame();
    const { user, section } = await renderGames([{ ...real, result: 'aborted', endReason: 'left' }]);
    await user.click(within(section).getByRole('button', { name: /^Verify/ }));
    const report = await within(section).findByRole('status');
    expect(report).toHaveTextContent('Some moves do not follow the rules.');
    expect(report).toHaveTextContent('the game is listed as aborted, but both players moved');
  });

  it('verifies a real game: replays every move and checks the commitment and every AI number', async () => {
    const game = playedGame();
    const { user, section, api } = await renderGames([game]);
    await user.click(within(section).getByRole('button', { name: /^Verify the game against bob/ }));
    const report = await within(section).findByRole('status');
    expect(report).toHaveTextContent('Every AI number of this game checks out.');
    expect(report).toHaveTextContent('Every move follows the rules.');
    expect(report).toHaveTextContent(`Replayed ${game.moves} moves.`);
    expect(within(report).queryByRole('list')).not.toBeInTheDocument();
    expect(api.callsTo(GAME)[0]?.path).toBe(
      `/api/rewards/${ALICE._id}/games/${encodeURIComponent(game.gameId)}`,
    );
  });

  it('fails a game whose seed does not match the commitment', async () => {
    const game = playedGame({ aiSeed: `${AI_SEED.slice(0, -1)}f` });
    const { user, section } = await renderGames([game]);
    await user.click(within(section).getByRole('button', { name: /^Verify/ }));
    const report = await within(section).findByRole('status');
    expect(report).toHaveTextContent('These AI numbers do not match the commitment.');
    expect(within(report).getAllByRole('listitem')[0]).toHaveTextContent(
      'the seed does not match the commitment',
    );
  });

  it('fails a game with a tampered move', async () => {
    const real = playedGame();
    const moveList = structuredClone(real.moveList ?? []);
    const third = moveList[2];
    if (!third) throw new Error('the fixture game is too short');
    third.number = third.number === 9 ? 8 : third.number + 1;
    const { user, section } = await renderGames([{ ...real, moveList }]);
    await user.click(within(section).getByRole('button', { name: /^Verify/ }));
    const report = await within(section).findByRole('status');
    // The AI numbers still match the seed; the replay finds the move out of line.
    expect(report).toHaveTextContent('Every AI number of this game checks out.');
    expect(report).toHaveTextContent('Some moves do not follow the rules.');
    expect(within(report).getAllByRole('listitem')[0]).toHaveTextContent(/^move 2: total \d+, expected \d+$/);
  });

  it('fails a game whose result is not what its moves give', async () => {
    const real = playedGame();
    const { user, section } = await renderGames([
      { ...real, result: real.result === 'won' ? 'lost' : 'won' },
    ]);
    await user.click(within(section).getByRole('button', { name: /^Verify/ }));
    const report = await within(section).findByRole('status');
    expect(report).toHaveTextContent('Some moves do not follow the rules.');
    expect(report).toHaveTextContent(/is not who reached 198/);
  });

  it('says when a game cannot be replayed, without fetching moves the list says it does not have', async () => {
    const game = playedGame({ verifiable: false, moveList: null });
    const { user, section, api } = await renderGames([game]);
    await user.click(within(section).getByRole('button', { name: /^Verify/ }));
    expect(await within(section).findByRole('status')).toHaveTextContent(
      'The moves of this game were not recorded, so it cannot be replayed.',
    );
    expect(api.callsTo(GAME)).toEqual([]);
  });

  it('says there are no games yet', async () => {
    fakeApi({ [REWARD]: { body: reward() }, [GAMES]: { body: [] } });
    renderApp('/profile', { user: ALICE });
    const section = await screen.findByRole('region', { name: 'My games' });
    expect(
      await within(section).findByText('No finished games yet. Play one and it shows up here.'),
    ).toBeInTheDocument();
  });

  it('shows the player’s rank with a link to the leaderboard', async () => {
    fakeApi({ [REWARD]: { body: reward({ rank: 4 }) }, [GAMES]: { body: [] } });
    renderApp('/profile', { user: ALICE });
    expect(await screen.findByText(/You are number 4 on the leaderboard\./)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See the leaderboard' })).toHaveAttribute('href', '/leaderboard');
  });
});
