import type { RoomView } from '@oasis198/contracts';
import { act, screen, within } from '@testing-library/react';
import {
  fakeApi,
  FakeEventSource,
  installEventSource,
  removeEventSource,
  type Handler,
} from '../../testing/fake-network';
import {
  ALICE,
  BOB,
  CAROL,
  EDIT_ROOM,
  GET_ROOM,
  gameRoom,
  nowSpec,
  room,
  ROOM_ID,
  ROOM_LABEL,
  ROOM_PATH,
  unavailable,
  UNAVAILABLE_TEXT,
} from '../../testing/fixtures';
import { renderApp } from '../../testing/render';

function serve(initial: RoomView, extra: Record<string, Handler> = {}) {
  let current = initial;
  const api = fakeApi({ [GET_ROOM]: () => ({ body: current }), ...extra });
  return { api, set: (next: RoomView) => (current = next) };
}

async function advance(ms: number): Promise<void> {
  await act(async () => {
    await jest.advanceTimersByTimeAsync(ms);
  });
}

describe('room screen: lobby', () => {
  afterEach(() => {
    jest.useRealTimers();
    removeEventSource();
  });

  it('hides the header and names the room by its label', async () => {
    serve(room());
    renderApp(ROOM_PATH);
    expect(await screen.findByRole('heading', { name: `Room ${ROOM_LABEL}` })).toBeInTheDocument();
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();
  });

  it('lets a visitor watch, and asks them to log in to play', async () => {
    serve(room());
    const { user } = renderApp(ROOM_PATH);
    expect(await screen.findByRole('heading', { name: 'Play or watch?' })).toBeInTheDocument();
    expect(screen.getByText('Visitors can watch any game. You need an account to play.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Log in to play' })).toHaveAttribute('href', '/login');
    expect(screen.queryByRole('button', { name: 'Play' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Watch' }));
    expect(screen.getByText('This room is waiting for a second player.')).toBeInTheDocument();
    expect(window.localStorage.getItem('userId')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('joins an open room one second after the player chose to play', async () => {
    jest.useFakeTimers();
    const { api } = serve(room(), { [EDIT_ROOM]: { body: { room: gameRoom() } } });
    const { user } = renderApp(ROOM_PATH, { user: BOB, fakeTimers: true });
    await user.click(await screen.findByRole('button', { name: 'Play' }));
    expect(screen.getByText('Joining the room…')).toBeInTheDocument();
    await advance(900);
    expect(api.callsTo(EDIT_ROOM)).toHaveLength(0);
    await advance(200);
    expect(api.callsTo(EDIT_ROOM)).toHaveLength(1);
    const call = api.callsTo(EDIT_ROOM)[0];
    expect(call?.body).toEqual({ players: { playerId: BOB._id, playerName: BOB.name } });
    expect(call?.headers.Authorization).toBe(`Bearer ${BOB.token}`);
    expect(await screen.findByRole('list', { name: 'Players' })).toBeInTheDocument();
  });

  it('auto-joins when the player arrives from the list choosing to play', async () => {
    jest.useFakeTimers();
    const { api } = serve(room(), { [EDIT_ROOM]: { body: { room: gameRoom() } } });
    renderApp(ROOM_PATH, { user: BOB, fakeTimers: true, state: { intent: 'play' } });
    expect(await screen.findByText('Joining the room…')).toBeInTheDocument();
    await advance(1_100);
    expect(api.callsTo(EDIT_ROOM)).toHaveLength(1);
  });

  it("asks for the passcode (4 characters at most) and says 'Oops, try again!' when refused", async () => {
    const { api } = serve(room({ hasPassCode: true }), {
      [EDIT_ROOM]: (req) =>
        (req.body as { passCode?: string }).passCode === '1234'
          ? { body: { room: gameRoom() } }
          : { status: 403, body: { message: 'Oops, try again!', code: 'FORBIDDEN' } },
    });
    const { user } = renderApp(ROOM_PATH, { user: BOB, state: { intent: 'play' } });
    const input = await screen.findByLabelText('Passcode');
    expect(input).toHaveAttribute('maxlength', '4');
    await user.type(input, '99999');
    expect(input).toHaveValue('9999');
    await user.click(screen.getByRole('button', { name: 'Join' }));
    expect(await screen.findByText('Oops, try again!')).toBeInTheDocument();
    // The message comes with the Join button enabled again.
    expect(screen.getByRole('button', { name: 'Join' })).toBeEnabled();
    expect(api.callsTo(EDIT_ROOM)[0]?.body).toEqual({
      players: { playerId: BOB._id, playerName: BOB.name },
      passCode: '9999',
    });

    await user.clear(input);
    await user.type(input, '1234');
    await user.click(screen.getByRole('button', { name: 'Join' }));
    expect(await screen.findByRole('list', { name: 'Players' })).toBeInTheDocument();
  });

  it('shows the room-full overlay for 2.5 s when the spot was taken meanwhile, then lets them watch', async () => {
    jest.useFakeTimers();
    // Told apart by its code alone: whatever the server's wording, SPEC's text shows.
    serve(room(), {
      [EDIT_ROOM]: { status: 409, body: { message: 'Both seats are taken.', code: 'ROOM_FULL' } },
    });
    renderApp(ROOM_PATH, { user: CAROL, fakeTimers: true, state: { intent: 'play' } });
    await screen.findByText('Joining the room…');
    await advance(1_100);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      "Game already started — you can't join this room.",
    );
    await advance(2_500);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByText('This room is waiting for a second player.')).toBeInTheDocument();
  });

  it('shows any other refused join as the server words it, without the room-full overlay', async () => {
    jest.useFakeTimers();
    serve(room(), {
      [EDIT_ROOM]: {
        status: 409,
        body: { message: 'You are already playing in another room. Leave it first.', code: 'CONFLICT' },
      },
    });
    renderApp(ROOM_PATH, { user: CAROL, fakeTimers: true, state: { intent: 'play' } });
    await screen.findByText('Joining the room…');
    await advance(1_100);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'You are already playing in another room. Leave it first.',
    );
    expect(screen.queryByText("Game already started — you can't join this room.")).not.toBeInTheDocument();
    await advance(2_600);
    expect(screen.getByRole('heading', { name: 'Play' })).toBeInTheDocument();
  });

  it('keeps the creator waiting for an opponent, with the bundled animation and no third-party call', async () => {
    const { api } = serve(room());
    renderApp(ROOM_PATH, { user: ALICE });
    expect(await screen.findByRole('heading', { name: 'Waiting for an opponent' })).toBeInTheDocument();
    expect(
      screen.getByRole('img', { name: 'A camel strolling past the oasis while you wait' }),
    ).toBeInTheDocument();
    expect(api.calls.every((c) => c.url.origin === 'http://localhost')).toBe(true);
  });

  it('counts down to the AI taking the seat in a room created with the AI option', async () => {
    jest.useFakeTimers();
    const aiJoinsAt = nowSpec() + 12;
    // Polled every 5 s, each answer with the server's clock of its moment.
    fakeApi({ [GET_ROOM]: () => ({ body: room({ aiJoinsAt, serverNow: nowSpec() }) }) });
    renderApp(ROOM_PATH, { user: ALICE, fakeTimers: true });
    const countdown = await screen.findByText('The AI takes the seat in 12 s unless someone joins first.');
    expect(countdown).toHaveRole('status');
    await advance(3_000);
    expect(countdown).toHaveTextContent('The AI takes the seat in 9 s unless someone joins first.');
    await advance(10_000);
    expect(countdown).toHaveTextContent('The AI is joining…');
  });

  it('shows no AI countdown in a room without the AI option', async () => {
    serve(room({ aiJoinsAt: null }));
    renderApp(ROOM_PATH, { user: ALICE });
    expect(await screen.findByRole('heading', { name: 'Waiting for an opponent' })).toBeInTheDocument();
    expect(screen.queryByText(/The AI/)).not.toBeInTheDocument();
  });

  it("shows the GIF service's image with a 'Powered by' link when a key is configured", async () => {
    window.OASIS_CONFIG = {
      gifApiKey: 'k3y',
      gifCategoriesUrl: 'https://gifs.example/v1/categories?key={key}',
    };
    const { api } = serve(room(), {
      'GET /v1/categories': {
        body: { data: { categories: [{ preview_url: 'https://media.gifs.example/camel.gif' }] } },
      },
    });
    renderApp(ROOM_PATH, { user: ALICE });
    const image = await screen.findByRole('img', { name: 'A camel strolling past the oasis while you wait' });
    expect(await screen.findByRole('link', { name: /Powered by gifs.example/ })).toHaveAttribute(
      'href',
      'https://gifs.example',
    );
    expect((await screen.findByRole('img', { name: /camel strolling/ })).getAttribute('src') ?? image).toBe(
      'https://media.gifs.example/camel.gif',
    );
    const gifCall = api.callsTo('GET /v1/categories')[0];
    expect(gifCall?.url.searchParams.get('key')).toBe('k3y');
    expect(gifCall?.url.searchParams.get('locale')).toBe('en_US');
    expect(gifCall?.headers.Authorization).toBeUndefined();
  });

  it("lets a waiting member leave after 'Sure you want to leave the room …?'", async () => {
    const { api } = serve(room(), {
      [EDIT_ROOM]: { body: { room: room({ players: [] }) } },
      'GET /api/rooms/': { body: [] },
    });
    const { user, router } = renderApp(ROOM_PATH, { user: ALICE });
    await user.click(await screen.findByRole('button', { name: 'Exit' }));
    const dialog = screen.getByRole('dialog', { name: `Sure you want to leave the room ${ROOM_LABEL}?` });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(api.callsTo(EDIT_ROOM)).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Exit' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Exit' }));
    expect(await screen.findByRole('heading', { name: 'Rooms' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/quick-battle/rooms');
    expect(api.callsTo(EDIT_ROOM)[0]?.body).toEqual({ players: { playerId: ALICE._id, removePlayer: true } });
  });

  it('goes to /quick-battle and says why when the room does not exist', async () => {
    fakeApi({
      [GET_ROOM]: { status: 404, body: { message: 'This room does not exist any more.', code: 'NOT_FOUND' } },
    });
    const { router } = renderApp(ROOM_PATH, { user: ALICE });
    expect(await screen.findByText('This room does not exist any more.')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/quick-battle');
  });

  it('goes to the room list and says why when polling finds the room closed (the push was missed)', async () => {
    jest.useFakeTimers();
    const closed = {
      status: 404,
      body: { message: 'This room does not exist any more.', code: 'NOT_FOUND', details: { reason: 'left' } },
    };
    let gone = false;
    serve(gameRoom({ total: 10 }), { [GET_ROOM]: () => (gone ? closed : { body: gameRoom({ total: 10 }) }) });
    const { router } = renderApp(ROOM_PATH, { user: ALICE, fakeTimers: true });
    expect(await screen.findByRole('status', { name: 'Total' })).toHaveTextContent('10');
    gone = true;
    await advance(5_100);
    expect(await screen.findByText('A player left, so the room was closed.')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/quick-battle/rooms');
  });

  it('says why the room was closed when its stream comes back after the room went', async () => {
    jest.useFakeTimers();
    installEventSource();
    let gone = false;
    serve(gameRoom({ total: 10 }), {
      [GET_ROOM]: () =>
        gone
          ? {
              status: 404,
              body: {
                message: 'This room does not exist any more.',
                code: 'NOT_FOUND',
                details: { reason: 'left' },
              },
            }
          : { body: gameRoom({ total: 10 }) },
    });
    const { router } = renderApp(ROOM_PATH, { user: ALICE, fakeTimers: true });
    expect(await screen.findByRole('status', { name: 'Total' })).toHaveTextContent('10');
    const stream = FakeEventSource.latest(`/api/rooms/${ROOM_ID}/stream`);
    await act(async () => stream?.open());
    // The stream drops while the room closes, and its reconnection is refused (404): no push comes.
    gone = true;
    await act(async () => {
      stream?.close();
      stream?.onerror?.();
    });
    await advance(5_100);
    expect(await screen.findByText('A player left, so the room was closed.')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/quick-battle/rooms');
  });

  it('shows a fetch failure with a retry instead of leaving', async () => {
    let fail = true;
    fakeApi({
      [GET_ROOM]: () => (fail ? unavailable : { body: room() }),
    });
    const { user } = renderApp(ROOM_PATH, { user: ALICE });
    expect(await screen.findByText(UNAVAILABLE_TEXT, {}, { timeout: 3000 })).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'Waiting for an opponent' })).toBeInTheDocument();
  });

  it('follows pushes (newest version wins) and leaves when the room is deleted', async () => {
    installEventSource();
    serve(gameRoom({ total: 10, version: 5 }));
    const { router } = renderApp(ROOM_PATH, { user: ALICE });
    expect(await screen.findByRole('status', { name: 'Total' })).toHaveTextContent('10');
    const stream = FakeEventSource.latest(`/api/rooms/${ROOM_ID}/stream`);
    expect(stream).toBeDefined();
    await act(async () => stream?.open());

    await act(async () => stream?.emit('room', gameRoom({ total: 30, version: 7 }), '7'));
    expect(screen.getByRole('status', { name: 'Total' })).toHaveTextContent('30');
    await act(async () => stream?.emit('room', gameRoom({ total: 20, version: 6 }), '6'));
    expect(screen.getByRole('status', { name: 'Total' })).toHaveTextContent('30');

    await act(async () =>
      stream?.emit('room-deleted', { roomId: ROOM_ID, version: 8, reason: 'abandoned' }, '8'),
    );
    expect(
      await screen.findByText('Nobody played for too long, so the room was closed.'),
    ).toBeInTheDocument();
    // SPEC §4 and DECISIONS "Time": back to the room list.
    expect(router.state.location.pathname).toBe('/quick-battle/rooms');
  });

  it('lets anyone watch a full room read-only, with both names', async () => {
    serve(gameRoom({ total: 12, turn: 'player2' }));
    renderApp(ROOM_PATH, { user: CAROL });
    expect(await screen.findByText('You are watching this game.')).toBeInTheDocument();
    const players = screen.getByRole('list', { name: 'Players' });
    expect(within(players).getByText('alice')).toBeInTheDocument();
    expect(within(players).getByText('bob')).toBeInTheDocument();
    expect(within(players).queryByText('You')).not.toBeInTheDocument();
    expect(screen.getByText("bob's turn")).toBeInTheDocument();
    expect(screen.queryByRole('group', { name: 'Dial' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Support Oasis' })).not.toBeInTheDocument();
  });
});
