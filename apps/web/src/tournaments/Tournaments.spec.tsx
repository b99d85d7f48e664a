import type { ArenaRoomResponse, ArenaView, EventArenaResponse, RoomView } from '@oasis198/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import { ALICE, BOB, EDIT_ROOM, gameRoom, GET_ROOM, overRoom, ROOM_ID } from '../testing/fixtures';
import { fakeApi, FakeEventSource, installEventSource, removeEventSource } from '../testing/fake-network';
import { renderApp } from '../testing/render';

const MY_EVENT_9 = 'GET /api/tournaments/events/event-9/me';
const getArenaRoom = (roomId: string): string => `GET /api/tournaments/rooms/${roomId}`;

/** Event 9's arena as of `now`: running since a second ago, for a minute more. */
function runningArena(now: number, overrides: Partial<ArenaView> = {}): ArenaView {
  return {
    arenaId: `event-9:${now}`,
    eventId: 'event-9',
    name: 'Event 9',
    startsAt: new Date(now - 1000).toISOString(),
    endsAt: new Date(now + 60_000).toISOString(),
    status: 'running',
    standings: [],
    ...overrides,
  };
}

/** Event 9 as its joined player sees it, playing in `roomId`. */
function joinedEvent(now: number, roomId: string): { body: EventArenaResponse } {
  return {
    body: {
      eventId: 'event-9',
      name: 'Event 9',
      arena: runningArena(now),
      previous: null,
      joined: true,
      roomId,
    },
  };
}

/** The arena of an arena room of Event 9; by default Alice (2, first) against Bob (0). */
function arenaOfRoom(
  now: number,
  roomId: string,
  players: ArenaRoomResponse['players'] = [
    { playerId: ALICE._id, name: ALICE.name, score: 2, rank: 1 },
    { playerId: BOB._id, name: BOB.name, score: 0, rank: 2 },
  ],
): { body: ArenaRoomResponse } {
  const { arenaId, endsAt } = runningArena(now);
  return { body: { roomId, arenaId, eventId: 'event-9', name: 'Event 9', endsAt, players } };
}

describe('tournaments', () => {
  beforeEach(() => fakeApi());

  it('offers the five cups and the quote page', async () => {
    const { user } = renderApp('/tournaments');
    await screen.findByRole('heading', { name: 'Tournaments' });
    const expected = {
      'World Cup': '/tournaments/world-cup',
      'Continental Cup': '/tournaments/coninental-cup',
      'Country Cup': '/tournaments/country-cup',
      'City Cup': '/tournaments/city-cup',
      'Event cup': '/tournaments/event-cup',
    };
    for (const [name, href] of Object.entries(expected)) {
      expect(screen.getByRole('link', { name })).toHaveAttribute('href', href);
    }
    await user.click(screen.getByRole('link', { name: 'A word for the road' }));
    expect(await screen.findByRole('blockquote')).toBeInTheDocument();
  });

  it("shows the world map and 'The Cup is currently unavailable' on the World Cup", async () => {
    renderApp('/tournaments/world-cup');
    expect(await screen.findByRole('img', { name: 'World map' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('The Cup is currently unavailable');
  });

  it('picks one of six continents on the map, then Change Continent or Continue', async () => {
    const { user, router } = renderApp('/tournaments/coninental-cup');
    const points = await screen.findByRole('list', { name: 'Choose a continent' });
    expect(
      within(points)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['North America', 'South America', 'Europe', 'Africa', 'Asia', 'Australia']);
    await user.click(within(points).getByRole('button', { name: 'Africa' }));
    expect(router.state.location.pathname).toBe('/tournaments/coninental-cup/africa');
    // The chosen cup's page renders after the navigation: wait for it (a busy machine is slower).
    expect(await screen.findByRole('heading', { name: 'Africa' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('status')).toHaveTextContent('The Cup is currently unavailable');
    await user.click(screen.getByRole('button', { name: 'Change Continent' }));
    expect(router.state.location.pathname).toBe('/tournaments/coninental-cup');
  });

  it.each([
    ['country-cup', 'Choose a country', ['argentina', 'france', 'iran'], 'france', 'France'],
    [
      'city-cup',
      'Choose a city',
      ['buenos-aires', 'lagos', 'milan', 'paris'],
      'buenos-aires',
      'Buenos Aires',
    ],
    ['event-cup', 'Choose an event', ['event-2', 'event-6', 'event-9'], 'event-6', 'Event 6'],
  ])(
    '%s enables only some choices and shows the chosen one as unavailable',
    async (cup, label, enabled, pick, name) => {
      // An event that runs no arenas answers without one: the page says the cup is unavailable.
      fakeApi({
        'GET /api/tournaments/events/event-6': {
          body: {
            eventId: 'event-6',
            name: 'Event 6',
            arena: null,
            previous: null,
            joined: false,
            roomId: null,
          },
        },
      });
      const { user, router } = renderApp(`/tournaments/${cup}`);
      const select = await screen.findByLabelText(label);
      const options = within(select).getAllByRole('option') as HTMLOptionElement[];
      const enabledIds = options.filter((o) => o.value && !o.disabled).map((o) => o.value);
      expect(enabledIds.sort()).toEqual([...enabled].sort());
      expect(options.filter((o) => o.disabled).length).toBeGreaterThan(0);
      if (cup === 'event-cup') expect(options.filter((o) => o.value)).toHaveLength(10);
      await user.selectOptions(select, pick);
      await user.click(screen.getByRole('button', { name: 'Continue' }));
      expect(router.state.location.pathname).toBe(`/tournaments/${cup}/${pick}`);
      expect(await screen.findByRole('heading', { name })).toBeInTheDocument();
      expect(screen.getByRole('status')).toHaveTextContent('The Cup is currently unavailable');
    },
  );

  it('shows a running arena: its countdown, its standings and a login link for a visitor', async () => {
    const now = Date.now();
    fakeApi({
      'GET /api/tournaments/events/event-9': {
        body: {
          eventId: 'event-9',
          name: 'Event 9',
          arena: runningArena(now, {
            startsAt: new Date(now - 60_000).toISOString(),
            endsAt: new Date(now + 125_000).toISOString(),
            standings: [
              { rank: 1, playerId: 'a', name: 'Ann', score: 4, wins: 2, games: 2 },
              { rank: 2, playerId: 'b', name: 'Ben', score: 1, wins: 0, games: 2 },
            ],
          }),
          previous: null,
          joined: false,
          roomId: null,
        },
      },
    });
    renderApp('/tournaments/event-cup/event-9');
    expect(await screen.findByRole('timer')).toHaveTextContent(/^Ends in 02:0[45]$/);
    const table = screen.getByRole('table', { name: 'Standings' });
    expect(
      within(table)
        .getAllByRole('row')
        .map((r) => r.textContent),
    ).toEqual(['RankPlayerScoreGames', '1Ann42', '2Ben12']);
    expect(screen.getByRole('link', { name: 'Log in to join' })).toHaveAttribute('href', '/login');
  });

  it('takes a joined player to their arena room as soon as they are paired', async () => {
    fakeApi({ [MY_EVENT_9]: joinedEvent(Date.now(), 'ab'.repeat(12)) });
    const { router } = renderApp('/tournaments/event-cup/event-9', { user: ALICE });
    await waitFor(() => expect(router.state.location.pathname).toBe(`/tournament/rooms/${'ab'.repeat(12)}`));
  });

  it('takes a player from their finished arena game to the next one the arena pairs them in', async () => {
    const [done, next] = ['cd'.repeat(12), 'ef'.repeat(12)];
    const now = Date.now();
    fakeApi({ [getArenaRoom(done)]: arenaOfRoom(now, done), [MY_EVENT_9]: joinedEvent(now, next) });
    const { router } = renderApp(`/tournament/rooms/${done}`, { user: ALICE });
    await waitFor(() => expect(router.state.location.pathname).toBe(`/tournament/rooms/${next}`));
  });

  it('sends the player of a closed arena room to the event page, which finds their next game', async () => {
    jest.useFakeTimers();
    const now = Date.now();
    let arenaKnown = false;
    const closed = {
      status: 404,
      body: { message: 'This room does not exist any more.', code: 'NOT_FOUND', details: { reason: 'left' } },
    };
    fakeApi({
      [GET_ROOM]: () => (arenaKnown ? closed : { body: gameRoom({ total: 10 }) }),
      [getArenaRoom(ROOM_ID)]: () => {
        arenaKnown = true;
        return arenaOfRoom(now, ROOM_ID, [{ playerId: ALICE._id, name: ALICE.name, score: 0, rank: 1 }]);
      },
    });
    const { router } = renderApp(`/tournament/rooms/${ROOM_ID}`, { user: ALICE, fakeTimers: true });
    await act(async () => {
      await jest.advanceTimersByTimeAsync(5_100);
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/tournaments/event-cup/event-9'));
    jest.useRealTimers();
  });

  describe('an arena room (one game; it belongs to its event page)', () => {
    const EVENT_PAGE = '/tournaments/event-cup/event-9';

    /** Alice's arena room: the room, its arena, and her arena view (still this room). */
    function serveArenaRoom(roomView: RoomView) {
      const now = Date.now();
      return fakeApi({
        [GET_ROOM]: { body: roomView },
        [EDIT_ROOM]: { body: { room: roomView } },
        [getArenaRoom(ROOM_ID)]: arenaOfRoom(now, ROOM_ID),
        [MY_EVENT_9]: joinedEvent(now, ROOM_ID),
      });
    }
    const arenaOver = (): RoomView => ({ ...overRoom('player1'), gameType: 'tournament' });

    it('ends the game without Play Again, its countdown or the rematch explanation', async () => {
      serveArenaRoom(arenaOver());
      renderApp(`/tournament/rooms/${ROOM_ID}`, { user: ALICE });
      expect(await screen.findByRole('heading', { name: 'You won!' })).toBeInTheDocument();
      expect(screen.getByText('You brought the total to 198 or more.')).toBeInTheDocument();
      expect(screen.getByText('Every AI number of this game checks out.')).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Exit Game' })).toBeInTheDocument();
      // The server refuses Play Again in an arena room: the arena pairs the player again.
      expect(screen.queryByRole('button', { name: 'Play Again' })).not.toBeInTheDocument();
      expect(screen.queryByRole('timer')).not.toBeInTheDocument();
      expect(screen.queryByText(/Play again within/)).not.toBeInTheDocument();
      expect(screen.queryByText(/Press Play Again to ask for a rematch/)).not.toBeInTheDocument();
      expect(screen.queryByRole('list', { name: 'Ready To Play' })).not.toBeInTheDocument();
    });

    it('links back to the event page, and Exit Game goes there', async () => {
      const api = serveArenaRoom(arenaOver());
      const { user, router } = renderApp(`/tournament/rooms/${ROOM_ID}`, { user: ALICE });
      const back = await screen.findByRole('link', { name: '← Back to the arena' });
      await waitFor(() => expect(back).toHaveAttribute('href', EVENT_PAGE));
      expect(screen.queryByRole('link', { name: '← Rooms' })).not.toBeInTheDocument();
      await user.click(await screen.findByRole('button', { name: 'Exit Game' }));
      await waitFor(() => expect(router.state.location.pathname).toBe(EVENT_PAGE));
      expect(api.callsTo(EDIT_ROOM)[0]?.body).toEqual({
        players: { playerId: ALICE._id, removePlayer: true },
      });
    });

    it('leaves a running game through the Exit confirmation to the event page', async () => {
      serveArenaRoom({ ...gameRoom({ total: 10 }), gameType: 'tournament' });
      const { user, router } = renderApp(`/tournament/rooms/${ROOM_ID}`, { user: ALICE });
      await waitFor(() =>
        expect(screen.getByRole('link', { name: '← Back to the arena' })).toHaveAttribute('href', EVENT_PAGE),
      );
      await user.click(await screen.findByRole('button', { name: 'Exit' }));
      const dialog = await screen.findByRole('dialog');
      await user.click(within(dialog).getByRole('button', { name: 'Exit' }));
      await waitFor(() => expect(router.state.location.pathname).toBe(EVENT_PAGE));
    });
  });

  describe("the event page's live stream", () => {
    const STREAM = '/api/tournaments/events/event-9/stream';
    const ANN = { rank: 1, playerId: 'a', name: 'Ann', score: 2, wins: 1, games: 1 };
    beforeEach(() => installEventSource());
    afterEach(() => removeEventSource());

    /** Event 9 with `arena`, as anyone sees it (what a frame carries) unless told otherwise. */
    const event9 = (arena: ArenaView, own: Partial<EventArenaResponse> = {}): EventArenaResponse => ({
      eventId: 'event-9',
      name: 'Event 9',
      arena,
      previous: null,
      joined: false,
      roomId: null,
      ...own,
    });
    const standings = (): (string | null)[] =>
      within(screen.getByRole('table', { name: 'Standings' }))
        .getAllByRole('row')
        .map((r) => r.textContent);

    /** Renders the page, opens its stream and waits for the refetch the opening starts. */
    async function openPage(options: Parameters<typeof renderApp>[1]) {
      const view = renderApp('/tournaments/event-cup/event-9', options);
      await screen.findByRole('timer');
      const stream = FakeEventSource.latest(STREAM);
      expect(stream).toBeDefined();
      act(() => stream?.open());
      await waitFor(() => expect(view.client.isFetching()).toBe(0));
      return { ...view, stream };
    }

    it("takes the standings from a frame, keeping the player's own entry, without reading /me", async () => {
      const now = Date.now();
      const arena = runningArena(now);
      const api = fakeApi({ [MY_EVENT_9]: () => ({ body: event9(arena, { joined: true }) }) });
      const { stream } = await openPage({ user: ALICE });
      expect(await screen.findByRole('button', { name: 'Leave' })).toBeInTheDocument();
      const reads = api.callsTo(MY_EVENT_9).length;

      act(() => stream?.emit('arena', { event: event9({ ...arena, standings: [ANN] }) }));
      await waitFor(() => expect(standings()).toEqual(['RankPlayerScoreGames', '1Ann21']));
      // The frame's joined false is anyone's view: Alice is still in.
      expect(screen.getByRole('button', { name: 'Leave' })).toBeInTheDocument();
      expect(api.callsTo(MY_EVENT_9)).toHaveLength(reads);

      // A new arena began: whether Alice is in it is hers to read.
      act(() => stream?.emit('arena', { event: event9(runningArena(now + 1)) }));
      await waitFor(() => expect(api.callsTo(MY_EVENT_9)).toHaveLength(reads + 1));
    });

    it("reads /me on a frame about the player's own entry, and follows them to their room", async () => {
      const now = Date.now();
      const arena = runningArena(now);
      let roomId: string | null = null;
      const api = fakeApi({ [MY_EVENT_9]: () => ({ body: event9(arena, { joined: true, roomId }) }) });
      const { stream, router } = await openPage({ user: ALICE });
      const reads = api.callsTo(MY_EVENT_9).length;

      act(() => stream?.emit('arena', { event: event9({ ...arena, standings: [ANN] }) }));
      await waitFor(() => expect(standings()).toEqual(['RankPlayerScoreGames', '1Ann21']));
      expect(api.callsTo(MY_EVENT_9)).toHaveLength(reads);

      // Alice is seated: the frame says it is hers, and her room is only in her /me.
      roomId = 'ab'.repeat(12);
      act(() => stream?.emit('arena', { event: event9(arena), mine: true }));
      await waitFor(() => expect(router.state.location.pathname).toBe(`/tournament/rooms/${roomId}`));
      expect(api.callsTo(MY_EVENT_9)).toHaveLength(reads + 1);
    });

    it('goes to the room a frame seats the player in, without reading /me', async () => {
      const arena = runningArena(Date.now());
      const api = fakeApi({ [MY_EVENT_9]: () => ({ body: event9(arena, { joined: true }) }) });
      const { stream, router } = await openPage({ user: ALICE });
      const reads = api.callsTo(MY_EVENT_9).length;
      const roomId = 'cd'.repeat(12);
      act(() => stream?.emit('arena', { mine: true, roomId }));
      await waitFor(() => expect(router.state.location.pathname).toBe(`/tournament/rooms/${roomId}`));
      expect(api.callsTo(MY_EVENT_9)).toHaveLength(reads);
    });

    it('names the logged-in player in the stream, and refetches on an empty frame', async () => {
      const now = Date.now();
      const api = fakeApi({ [MY_EVENT_9]: () => ({ body: event9(runningArena(now), { joined: true }) }) });
      const { stream } = await openPage({ user: ALICE });
      expect(stream?.url).toBe(`${STREAM}?player=${ALICE._id}`);
      const reads = api.callsTo(MY_EVENT_9).length;
      act(() => stream?.emit('arena', {}));
      await waitFor(() => expect(api.callsTo(MY_EVENT_9)).toHaveLength(reads + 1));
    });

    it("gives a visitor the frame's event as it is, on a stream naming nobody", async () => {
      const now = Date.now();
      const EVENT_9 = 'GET /api/tournaments/events/event-9';
      const api = fakeApi({ [EVENT_9]: () => ({ body: event9(runningArena(now)) }) });
      const { stream } = await openPage({});
      expect(stream?.url).toBe(STREAM);
      const reads = api.callsTo(EVENT_9).length;
      act(() => stream?.emit('arena', { event: event9(runningArena(now + 1, { standings: [ANN] })) }));
      await waitFor(() => expect(standings()).toEqual(['RankPlayerScoreGames', '1Ann21']));
      expect(api.callsTo(EVENT_9)).toHaveLength(reads);
    });
  });

  it('sends a disabled choice back to its cup', async () => {
    const { router } = renderApp('/tournaments/country-cup/brazil');
    await screen.findByLabelText('Choose a country');
    expect(router.state.location.pathname).toBe('/tournaments/country-cup');
  });
});
