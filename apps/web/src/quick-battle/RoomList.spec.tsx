import { roomLabel } from '@oasis198/game-rules';
import { act, screen, within } from '@testing-library/react';
import { fakeApi, FakeEventSource, installEventSource, removeEventSource } from '../testing/fake-network';
import { ALICE, BOB, CAROL, room, roomList, unavailable, UNAVAILABLE_TEXT } from '../testing/fixtures';
import { renderApp } from '../testing/render';

const open = room({
  _id: 'aaaaaaaaaaaaaaaaaa0pen01',
  players: [{ id: BOB._id, name: BOB.name }],
  createdBy: { id: BOB._id, name: BOB.name },
});
const locked = room({
  _id: 'bbbbbbbbbbbbbbbbbblock02',
  hasPassCode: true,
  duration: 300,
  createdBy: { id: CAROL._id, name: 'carol' },
  players: [{ id: CAROL._id, name: 'carol' }],
});
const full = room({
  _id: 'ccccccccccccccccccfull03',
  players: [
    { id: BOB._id, name: BOB.name },
    { id: CAROL._id, name: 'carol' },
  ],
});

const card = (id: string) => screen.getByRole('listitem', { name: `Room ${roomLabel(id)}` });

describe('/quick-battle/rooms', () => {
  afterEach(() => removeEventSource());

  it("shows a spinner, then 'No rooms available / Create a new one to start playing'", async () => {
    fakeApi({ 'GET /api/rooms/': roomList([]) });
    renderApp('/quick-battle/rooms');
    expect(screen.getByRole('status')).toHaveTextContent('Loading…');
    expect(
      await screen.findByText('No rooms available / Create a new one to start playing'),
    ).toBeInTheDocument();
  });

  it('marks rooms Enter/available or Closed/unavailable, with a lock for passcode rooms', async () => {
    fakeApi({ 'GET /api/rooms/': roomList([open, locked, full]) });
    renderApp('/quick-battle/rooms');
    await screen.findByRole('list', { name: 'Rooms' });
    expect(within(card(open._id)).getByText('Enter · available')).toBeInTheDocument();
    expect(within(card(open._id)).queryByRole('img', { name: 'Passcode required' })).not.toBeInTheDocument();
    expect(within(card(locked._id)).getByRole('img', { name: 'Passcode required' })).toBeInTheDocument();
    expect(within(card(locked._id)).getByText('5 min turns')).toBeInTheDocument();
    expect(within(card(full._id)).getByText('Closed · unavailable')).toBeInTheDocument();
    expect(
      within(card(full._id)).getByRole('button', { name: `Closed Room ${roomLabel(full._id)}` }),
    ).toBeInTheDocument();
  });

  it("shows 'Game already started — you can't join this room.' for 2.5 s when entering a full room", async () => {
    jest.useFakeTimers();
    try {
      fakeApi({
        'GET /api/rooms/': roomList([full]),
        'GET /api/rooms/mine': { status: 404, body: { message: 'Not found.', code: 'NOT_FOUND' } },
      });
      const { user, router } = renderApp('/quick-battle/rooms', { user: ALICE, fakeTimers: true });
      await screen.findByRole('list', { name: 'Rooms' });
      await user.click(screen.getByRole('button', { name: `Closed Room ${roomLabel(full._id)}` }));
      expect(screen.getByRole('alert')).toHaveTextContent("Game already started — you can't join this room.");
      expect(router.state.location.pathname).toBe('/quick-battle/rooms');
      await act(async () => {
        await jest.advanceTimersByTimeAsync(2_400);
      });
      expect(screen.getByRole('alert')).toBeInTheDocument();
      await act(async () => {
        await jest.advanceTimersByTimeAsync(200);
      });
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    } finally {
      jest.useRealTimers();
    }
  });

  it('shows the same overlay, with why, to a player in another room who enters an open one', async () => {
    const elsewhere = room({
      _id: 'ddddddddddddddddddmine04',
      players: [{ id: ALICE._id, name: ALICE.name }],
    });
    fakeApi({ 'GET /api/rooms/': roomList([open]), 'GET /api/rooms/mine': { body: elsewhere } });
    const { user, router } = renderApp('/quick-battle/rooms', { user: ALICE });
    await screen.findByRole('link', { name: 'My Room' });
    await user.click(screen.getByRole('button', { name: `Enter Room ${roomLabel(open._id)}` }));
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent("Game already started — you can't join this room.");
    expect(alert).toHaveTextContent('You are already playing in another room. Leave it first.');
    expect(router.state.location.pathname).toBe('/quick-battle/rooms');
  });

  it('enters an open room to play, or any room to watch', async () => {
    fakeApi({
      'GET /api/rooms/': roomList([open, full]),
      'GET /api/rooms/mine': { status: 404, body: { message: 'x', code: 'NOT_FOUND' } },
      'GET /api/rooms/:id': (req) => ({ body: req.path.endsWith(open._id) ? open : full }),
    });
    const { user, router } = renderApp('/quick-battle/rooms', { user: ALICE });
    await screen.findByRole('list', { name: 'Rooms' });
    await user.click(screen.getByRole('button', { name: `Enter Room ${roomLabel(open._id)}` }));
    expect(router.state.location.pathname).toBe(`/quick-battle/rooms/${open._id}`);
    expect(router.state.location.state).toEqual({ intent: 'play' });

    await act(() => router.navigate('/quick-battle/rooms'));
    await user.click(await screen.findByRole('link', { name: `Watch Room ${roomLabel(full._id)}` }));
    expect(router.state.location.pathname).toBe(`/quick-battle/rooms/${full._id}`);
    expect(router.state.location.state).toEqual({ intent: 'watch' });
  });

  it('plays now: asks the server for a seat and takes the player to the room it answers', async () => {
    const seated = { ...open, players: [...open.players, { id: ALICE._id, name: ALICE.name }] };
    const api = fakeApi({
      'GET /api/rooms/': roomList([open]),
      'GET /api/rooms/mine': { status: 404, body: { message: 'x', code: 'NOT_FOUND' } },
      'POST /api/rooms/play-now': { body: seated },
      'GET /api/rooms/:id': { body: seated },
    });
    const { user, router } = renderApp('/quick-battle/rooms', { user: ALICE });
    await user.click(await screen.findByRole('button', { name: 'Play now' }));
    expect(api.callsTo('POST /api/rooms/play-now')[0]?.headers.Authorization).toBe(`Bearer ${ALICE.token}`);
    expect(router.state.location.pathname).toBe(`/quick-battle/rooms/${open._id}`);
  });

  it('pages through 8 rooms at a time and filters rooms with one free spot', async () => {
    const api = fakeApi({ 'GET /api/rooms/': roomList([open], 20) });
    const { user } = renderApp('/quick-battle/rooms');
    expect(await screen.findByText('Page 1 of 3')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('Page 2 of 3')).toBeInTheDocument();
    expect(api.calls.at(-1)?.url.search).toBe('?page=2&freeSpot=false');

    const filter = screen.getByRole('switch', { name: 'Only rooms with one free spot' });
    expect(filter).toHaveAttribute('aria-checked', 'false');
    await user.click(filter);
    expect(filter).toHaveAttribute('aria-checked', 'true');
    expect(await screen.findByText('Page 1 of 3')).toBeInTheDocument();
    expect(api.calls.at(-1)?.url.search).toBe('?page=1&freeSpot=true');
  });

  it('offers My Room when the user has one, a disabled one when not, and a way to log in to visitors', async () => {
    const api = fakeApi({ 'GET /api/rooms/': roomList([open]), 'GET /api/rooms/mine': { body: open } });
    const first = renderApp('/quick-battle/rooms', { user: BOB });
    expect(await screen.findByRole('link', { name: 'My Room' })).toHaveAttribute(
      'href',
      `/quick-battle/rooms/${open._id}`,
    );
    expect(api.callsTo('GET /api/rooms/mine')[0]?.headers.Authorization).toBe(`Bearer ${BOB.token}`);
    first.unmount();

    api.on('GET /api/rooms/mine', { status: 404, body: { message: 'Not found.', code: 'NOT_FOUND' } });
    const second = renderApp('/quick-battle/rooms', { user: ALICE });
    await screen.findByRole('list', { name: 'Rooms' });
    expect(await screen.findByRole('button', { name: 'My Room' })).toBeDisabled();
    second.unmount();

    // SPEC §2 lists My Room on the room list; a visitor has none until they log in.
    const visitor = renderApp('/quick-battle/rooms');
    await screen.findByRole('list', { name: 'Rooms' });
    expect(screen.queryByRole('button', { name: 'My Room' })).not.toBeInTheDocument();
    const myRoom = screen.getByRole('link', { name: 'My Room' });
    expect(myRoom).toHaveAttribute('href', '/login');
    await visitor.user.click(myRoom);
    expect(visitor.router.state.location.pathname).toBe('/login');
    await act(() => visitor.router.navigate('/quick-battle/rooms'));
    await screen.findByRole('list', { name: 'Rooms' });
    expect(screen.getByRole('link', { name: 'Create a Room' })).toHaveAttribute(
      'href',
      '/quick-battle/create',
    );
  });

  it('shows the error and retries on demand', async () => {
    let fail = true;
    fakeApi({
      'GET /api/rooms/': () => (fail ? unavailable : roomList([open])),
    });
    const { user } = renderApp('/quick-battle/rooms');
    expect(await screen.findByText(UNAVAILABLE_TEXT, {}, { timeout: 3000 })).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('list', { name: 'Rooms' })).toBeInTheDocument();
  });

  it('polls every 5 s without a stream', async () => {
    jest.useFakeTimers();
    try {
      const api = fakeApi({ 'GET /api/rooms/': roomList([open]) });
      renderApp('/quick-battle/rooms', { fakeTimers: true });
      await screen.findByRole('list', { name: 'Rooms' });
      expect(api.callsTo('GET /api/rooms/')).toHaveLength(1);
      await act(async () => {
        await jest.advanceTimersByTimeAsync(5_100);
      });
      expect(api.callsTo('GET /api/rooms/')).toHaveLength(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('follows the live stream: new rooms refetch the list, and no polling while it is open', async () => {
    installEventSource();
    jest.useFakeTimers();
    try {
      let rooms = [open];
      const api = fakeApi({ 'GET /api/rooms/': () => roomList(rooms) });
      renderApp('/quick-battle/rooms', { fakeTimers: true });
      await screen.findByRole('list', { name: 'Rooms' });
      const stream = FakeEventSource.latest('/api/rooms/stream');
      expect(stream).toBeDefined();
      await act(async () => {
        stream?.open();
        await jest.advanceTimersByTimeAsync(10);
      });
      const afterOpen = api.callsTo('GET /api/rooms/').length;
      await act(async () => {
        await jest.advanceTimersByTimeAsync(12_000);
      });
      expect(api.callsTo('GET /api/rooms/')).toHaveLength(afterOpen);

      rooms = [locked, open];
      await act(async () => {
        stream?.emit('room', locked, String(locked.version));
        await jest.advanceTimersByTimeAsync(10);
      });
      expect(
        await screen.findByRole('listitem', { name: `Room ${roomLabel(locked._id)}` }),
      ).toBeInTheDocument();
    } finally {
      jest.useRealTimers();
    }
  });
});
