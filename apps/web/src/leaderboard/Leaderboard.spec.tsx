import type { RankedReward } from '@oasis198/contracts';
import { act, screen, within } from '@testing-library/react';
import { fakeApi, FakeEventSource, installEventSource, removeEventSource } from '../testing/fake-network';
import { ALICE, reward } from '../testing/fixtures';
import { renderApp } from '../testing/render';

const LIST = 'GET /api/rewards/';
const MINE = `GET /api/rewards/${ALICE._id}`;

/** Ranked players named p1, p2, ... with ranks from `first`. */
function players(count: number, first = 1): RankedReward[] {
  return Array.from({ length: count }, (_, i) =>
    reward({
      playerId: `p${first + i}`,
      playerName: `player${first + i}`,
      rank: first + i,
      wins: 30 - i,
      playedGames: 40,
      assets: { points: 1000 - 10 * (first + i), coins: 0 },
    }),
  );
}

const page = (rewards: RankedReward[], total: number) => ({
  body: rewards,
  headers: { 'X-Total-Count': String(total) },
});

const rows = () => within(screen.getByRole('table')).getAllByRole('row').slice(1);

describe('/leaderboard', () => {
  afterEach(() => removeEventSource());

  it('ranks the players of the page: rank, name, points, wins and games, in a table with headers', async () => {
    fakeApi({ [LIST]: page(players(3), 3) });
    renderApp('/leaderboard');
    expect(await screen.findByRole('heading', { level: 1, name: 'Leaderboard' })).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Players by rank, page 1 of 1' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Rank', 'Player', 'Points', 'Wins', 'Games']);
    expect(
      rows().map((row) =>
        within(row)
          .getAllByRole('cell')
          .map((c) => c.textContent),
      ),
    ).toEqual([
      ['1', 'player1', '990', '30', '40'],
      ['2', 'player2', '980', '29', '40'],
      ['3', 'player3', '970', '28', '40'],
    ]);
    // A visitor has no rank of their own.
    expect(screen.getByRole('link', { name: 'Log in to see your own rank.' })).toBeInTheDocument();
  });

  it("highlights the signed-in player's own row on the page", async () => {
    const list = players(3);
    list[1] = reward({ rank: 2 });
    fakeApi({ [LIST]: page(list, 3), [MINE]: { body: reward({ rank: 2 }) } });
    renderApp('/leaderboard', { user: ALICE });
    const mine = await screen.findByRole('row', { current: true });
    expect(mine).toHaveTextContent(`2${ALICE.name} (you)`);
    expect(rows().filter((row) => row.getAttribute('aria-current') === 'true')).toEqual([mine]);
    expect(screen.queryByRole('region', { name: 'Your rank' })).not.toBeInTheDocument();
  });

  it('shows the signed-in player’s own rank when it is on another page, and goes to that page', async () => {
    const api = fakeApi({
      [LIST]: (req) =>
        req.url.searchParams.get('page') === '3'
          ? page([...players(16, 41), reward({ rank: 57, playerName: ALICE.name }), ...players(3, 58)], 75)
          : page(players(20), 75),
      [MINE]: { body: reward({ rank: 57, wins: 1, assets: { points: 25, coins: 10 } }) },
    });
    const { user, router } = renderApp('/leaderboard', { user: ALICE });
    const mine = await screen.findByRole('region', { name: 'Your rank' });
    expect(mine).toHaveTextContent(`#57${ALICE.name}25 points1 win`);
    expect(screen.queryByRole('row', { current: true })).not.toBeInTheDocument();
    expect(screen.getByText('Page 1 of 4')).toBeInTheDocument();

    await user.click(within(mine).getByRole('button', { name: 'Show my page' }));
    expect(await screen.findByRole('row', { current: true })).toHaveTextContent('57');
    expect(router.state.location.search).toBe('?page=3');
    expect(api.callsTo(LIST).at(-1)?.url.searchParams.get('pageSize')).toBe('20');
    expect(screen.queryByRole('region', { name: 'Your rank' })).not.toBeInTheDocument();
  });

  it('follows the games as they end: a push refetches the page and the own rank', async () => {
    installEventSource();
    let after = false;
    const api = fakeApi({
      [LIST]: () =>
        after
          ? page([reward({ rank: 1 }), ...players(2, 2)], 3)
          : page([...players(2), reward({ rank: 3 })], 3),
      [MINE]: () => ({ body: reward({ rank: after ? 1 : 3 }) }),
    });
    renderApp('/leaderboard', { user: ALICE });
    expect(await screen.findByRole('row', { current: true })).toHaveTextContent(/^3/);
    const stream = FakeEventSource.latest('/api/rewards/stream');
    expect(stream).toBeDefined();
    act(() => stream?.open());
    const before = api.callsTo(LIST).length;
    after = true;
    act(() => stream?.emit('leaderboard', {}));
    expect(await screen.findByRole('row', { current: true })).toHaveTextContent(/^1/);
    expect(api.callsTo(LIST).length).toBeGreaterThan(before);
    expect(rows()[0]).toHaveTextContent(ALICE.name);
  });

  it('says so when the list cannot be read, and tries again on request', async () => {
    let fail = true;
    fakeApi({
      [LIST]: () =>
        fail
          ? {
              status: 400,
              body: { message: 'page must be a whole number of at least 1.', code: 'VALIDATION' },
            }
          : page(players(1), 1),
    });
    const { user } = renderApp('/leaderboard');
    expect(await screen.findByRole('alert')).toHaveTextContent('page must be a whole number of at least 1.');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table')).toBeInTheDocument();
  });

  it('is linked from home and from the game menu', async () => {
    fakeApi({ [LIST]: page(players(1), 1) });
    const { user, router } = renderApp('/');
    await user.click(screen.getByRole('link', { name: 'Leaderboard' }));
    expect(router.state.location.pathname).toBe('/leaderboard');
    await screen.findByRole('table');
    await act(() => router.navigate('/tournaments'));
    await user.click(screen.getByRole('button', { name: 'Game menu' }));
    const menu = await screen.findByRole('dialog', { name: 'Game menu' });
    await user.click(within(menu).getByRole('link', { name: 'Leaderboard' }));
    expect(router.state.location.pathname).toBe('/leaderboard');
  });
});
