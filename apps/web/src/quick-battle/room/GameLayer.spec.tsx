import type { RoomView } from '@oasis198/contracts';
import type { MoveRecord } from '@oasis198/game-rules';
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
  EDIT_ROOM,
  GET_ROOM,
  gameRoom,
  nowSpec,
  ROOM_ID,
  ROOM_LABEL,
  ROOM_PATH,
} from '../../testing/fixtures';
import { renderApp } from '../../testing/render';

function serve(initial: RoomView, extra: Record<string, Handler> = {}) {
  return fakeApi({ [GET_ROOM]: { body: initial }, ...extra });
}

const move = (overrides: Partial<MoveRecord>): MoveRecord => ({
  player: 'player1',
  number: 5,
  option: 'plain',
  aiNumber: 3,
  total: 5,
  at: nowSpec(),
  ...overrides,
});

const oasisButtons = () =>
  within(screen.getByRole('region', { name: 'Support Oasis' }))
    .getAllByRole('button')
    .map((b) => b.querySelector('span')?.textContent);

describe('room screen: game layer', () => {
  afterEach(() => {
    jest.useRealTimers();
    removeEventSource();
  });

  it('on your turn: You and Opponent, the active player marked, the dial enabled, a pick sent as a move', async () => {
    const api = serve(gameRoom({ total: 4 }), {
      [EDIT_ROOM]: {
        body: { room: gameRoom({ total: 9, turn: 'player2', moves: [move({ total: 9 })], version: 6 }) },
      },
    });
    const { user } = renderApp(ROOM_PATH, { user: ALICE });
    const players = await screen.findByRole('list', { name: 'Players' });
    const [me, other] = within(players).getAllByRole('listitem');
    expect(me).toHaveTextContent('You');
    expect(me).toHaveAttribute('aria-current', 'true');
    expect(other).toHaveTextContent('Opponent');
    expect(other).toHaveTextContent('bob');
    expect(other).not.toHaveAttribute('aria-current');
    expect(screen.getByText('Your turn')).toBeInTheDocument();
    expect(screen.getByText('Game Started')).toBeInTheDocument();

    const dial = screen.getByRole('group', { name: 'Dial' });
    for (const name of ['Random', '1', '5', '9'])
      expect(within(dial).getByRole('button', { name })).toBeEnabled();
    await user.click(within(dial).getByRole('button', { name: '5' }));
    expect(await screen.findByText("Opponent's turn")).toBeInTheDocument();
    expect(api.callsTo(EDIT_ROOM)[0]?.body).toEqual({ move: { number: 5, option: 'plain' } });
    expect(screen.getByText('Continuing')).toBeInTheDocument();
  });

  it("not your turn: the dial is disabled and the opponent's pause shows the current number", async () => {
    serve(gameRoom({ total: 42, turn: 'player2' }));
    renderApp(ROOM_PATH, { user: ALICE });
    expect(await screen.findByText("Opponent's turn")).toBeInTheDocument();
    const dial = screen.getByRole('group', { name: 'Dial' });
    for (const button of within(dial).getAllByRole('button')) expect(button).toBeDisabled();
    const pause = screen.getByRole('region', { name: 'Opponent is thinking' });
    expect(pause).toHaveTextContent('Current number: 42');
    const [, other] = within(screen.getByRole('list', { name: 'Players' })).getAllByRole('listitem');
    expect(other).toHaveAttribute('aria-current', 'true');
  });

  it('shows player 2 as You from their side', async () => {
    serve(gameRoom({ turn: 'player2' }));
    renderApp(ROOM_PATH, { user: BOB });
    const [me, other] = within(await screen.findByRole('list', { name: 'Players' })).getAllByRole('listitem');
    expect(me).toHaveTextContent('Youbob');
    expect(other).toHaveTextContent('Opponentalice');
    expect(screen.getByText('Your turn')).toBeInTheDocument();
  });

  it.each([
    [0, ['Double', 'Add extra 7', 'Add extra 1']],
    [72, ['Double', 'Add extra 7', 'Add extra 1']],
    [73, ['Add extra 7', 'Add extra 4', 'Add extra 1']],
    [160, ['Add extra 7', 'Add extra 4', 'Add extra 1']],
    [161, ['Add extra 4', 'Add extra 1', 'Negative 2 X']],
    [197, ['Add extra 4', 'Add extra 1', 'Negative 2 X']],
  ])('offers exactly the legal Oasis options at a total of %i', async (total, expected) => {
    serve(gameRoom({ total }));
    renderApp(ROOM_PATH, { user: ALICE });
    await screen.findByRole('region', { name: 'Support Oasis' });
    expect(oasisButtons()).toEqual(expected);
  });

  it('drops an option with no uses left unless matched credit covers it', async () => {
    serve(gameRoom({ total: 10, oasis1: { double: 0, matched: 0 } }));
    const first = renderApp(ROOM_PATH, { user: ALICE });
    await screen.findByRole('region', { name: 'Support Oasis' });
    expect(oasisButtons()).toEqual(['Add extra 7', 'Add extra 1']);
    first.unmount();

    serve(gameRoom({ total: 10, oasis1: { double: 0, matched: 2 } }));
    renderApp(ROOM_PATH, { user: ALICE });
    const panel = await screen.findByRole('region', { name: 'Support Oasis' });
    expect(oasisButtons()).toEqual(['Double', 'Add extra 7', 'Add extra 1']);
    expect(within(panel).getByRole('button', { name: /Double/ })).toHaveTextContent('0 left');
    expect(panel).toHaveTextContent('Matched: 2');
  });

  it('selects an option, deselects it on a second click, and sends the selected one with the pick', async () => {
    const api = serve(gameRoom({ total: 10 }), {
      [EDIT_ROOM]: { body: { room: gameRoom({ total: 16, turn: 'player2', version: 6 }) } },
    });
    const { user } = renderApp(ROOM_PATH, { user: ALICE });
    const double = await screen.findByRole('button', { name: /^Double/ });
    expect(double).toHaveAttribute('aria-pressed', 'false');
    await user.click(double);
    expect(double).toHaveAttribute('aria-pressed', 'true');
    await user.click(double);
    expect(double).toHaveAttribute('aria-pressed', 'false');
    await user.click(double);
    await user.click(
      within(screen.getByRole('group', { name: 'Dial' })).getByRole('button', { name: 'Random' }),
    );
    expect(api.callsTo(EDIT_ROOM)[0]?.body).toEqual({ move: { number: 'random', option: 'double' } });
  });

  it('shows the picked number and the AI number for 2.4 s after a move, then for the opponent’s push', async () => {
    jest.useFakeTimers();
    installEventSource();
    const after = gameRoom({
      total: 5,
      turn: 'player2',
      moves: [move({ number: 5, aiNumber: 5 })],
      version: 6,
    });
    serve(gameRoom(), { [EDIT_ROOM]: { body: { room: after } } });
    const { user } = renderApp(ROOM_PATH, { user: ALICE, fakeTimers: true });
    await user.click(
      within(await screen.findByRole('group', { name: 'Dial' })).getByRole('button', { name: '5' }),
    );
    const overlay = await screen.findByText('You picked 5');
    expect(overlay.closest('[role="status"]')).toHaveTextContent('AI picked 5');
    expect(overlay.closest('[role="status"]')).toHaveTextContent('Match!');
    await act(async () => {
      await jest.advanceTimersByTimeAsync(2_500);
    });
    expect(screen.queryByText('You picked 5')).not.toBeInTheDocument();

    const stream = FakeEventSource.latest(`/api/rooms/${ROOM_ID}/stream`);
    const opponentMove = move({ player: 'player2', number: 4, option: 'extra', aiNumber: 8, total: 16 });
    await act(async () => {
      stream?.emit(
        'room',
        gameRoom({ total: 16, moves: [move({ number: 5, aiNumber: 5 }), opponentMove], version: 7 }),
        '7',
      );
      await jest.advanceTimersByTimeAsync(10);
    });
    const theirs = await screen.findByText('Opponent picked 4');
    expect(theirs.closest('[role="status"]')).toHaveTextContent('Add extra 7');
    expect(theirs.closest('[role="status"]')).toHaveTextContent('AI picked 8');
    const rounds = screen.getByRole('region', { name: 'Rounds: 2' });
    expect(rounds).toHaveTextContent('Opponent picked 4 (Add extra 7), AI 8, total 16');
    expect(rounds).toHaveTextContent('You picked 5, AI 5, total 5');
  });

  it("counts down to the deadline and reads 'Weak' below -6 s", async () => {
    serve(gameRoom({ deadlineIn: 20 }));
    const first = renderApp(ROOM_PATH, { user: ALICE });
    expect(await screen.findByRole('timer')).toHaveTextContent('20 s');
    first.unmount();
    serve(gameRoom({ deadlineIn: -3 }));
    const second = renderApp(ROOM_PATH, { user: ALICE });
    expect(await screen.findByRole('timer')).toHaveTextContent('-3 s');
    second.unmount();
    serve(gameRoom({ deadlineIn: -7 }));
    renderApp(ROOM_PATH, { user: ALICE });
    expect(await screen.findByRole('timer')).toHaveTextContent('Weak');
  });

  it('aligns the countdown with the server clock', async () => {
    const room = gameRoom({ deadlineIn: 20 });
    serve({ ...room, serverNow: room.serverNow - 30 });
    renderApp(ROOM_PATH, { user: ALICE });
    expect(await screen.findByRole('timer')).toHaveTextContent('50 s');
  });

  it('marks reached milestones green and the others as not reached yet', async () => {
    serve(gameRoom({ total: 100 }));
    renderApp(ROOM_PATH, { user: ALICE });
    const list = await screen.findByRole('region', { name: 'Milestones' });
    const items = within(list).getAllByRole('listitem');
    expect(items[0]).toHaveTextContent('Milestone 73You nailed this milestone');
    expect(items[1]).toHaveTextContent("Milestone 161You're not here yet");
    expect(items[2]).toHaveTextContent("Milestone 198You're not here yet");
  });

  it('shows the refusal when a move is refused', async () => {
    serve(gameRoom(), {
      [EDIT_ROOM]: { status: 409, body: { message: 'Time is up for this turn.', code: 'CONFLICT' } },
    });
    const { user } = renderApp(ROOM_PATH, { user: ALICE });
    await user.click(
      within(await screen.findByRole('group', { name: 'Dial' })).getByRole('button', { name: '3' }),
    );
    expect(await screen.findByRole('alert')).toHaveTextContent('Time is up for this turn.');
  });

  it('opens GAME SETTINGS and toggles the music, remembering the choice', async () => {
    serve(gameRoom());
    const { user } = renderApp(ROOM_PATH, { user: ALICE });
    await user.click(await screen.findByRole('button', { name: 'Settings' }));
    const dialog = screen.getByRole('dialog', { name: 'GAME SETTINGS' });
    const music = within(dialog).getByRole('switch', { name: 'Music' });
    expect(music).toHaveAttribute('aria-checked', 'false');
    await user.click(music);
    expect(music).toHaveAttribute('aria-checked', 'true');
    expect(window.localStorage.getItem('musicMuted')).toBe('false');
    await user.click(music);
    expect(window.localStorage.getItem('musicMuted')).toBe('true');
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('shows the help panel with the counters and the help type in upper case, and closes it', async () => {
    serve(gameRoom({ oasis1: { minus: 2, matched: 1 } }));
    const { user } = renderApp(ROOM_PATH, { user: ALICE });
    const help = await screen.findByRole('complementary', { name: 'PLUS' });
    const counters = within(help).getByRole('list', { name: 'Your Oasis counters' });
    expect(
      within(counters)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['double 3', 'added 3', 'extra 3', 'bonus 3', 'minus 2', 'matched 1']);
    await user.click(within(counters).getByRole('button', { name: 'minus 2' }));
    expect(screen.getByRole('complementary', { name: 'MINUS' })).toHaveTextContent(
      'Negative 2 X takes twice',
    );
    await user.click(within(help).getByRole('button', { name: 'Close help' }));
    expect(screen.queryByRole('complementary')).not.toBeInTheDocument();
  });

  it('leaves the game through the Exit confirmation and goes to the room list', async () => {
    const api = serve(gameRoom(), {
      [EDIT_ROOM]: { body: { room: gameRoom() } },
      'GET /api/rooms/': { body: [] },
    });
    const { user, router } = renderApp(ROOM_PATH, { user: ALICE });
    await user.click(await screen.findByRole('button', { name: 'Exit' }));
    const dialog = screen.getByRole('dialog', { name: `Sure you want to leave the room ${ROOM_LABEL}?` });
    await user.click(within(dialog).getByRole('button', { name: 'Exit' }));
    await screen.findByRole('heading', { name: 'Rooms' });
    expect(router.state.location.pathname).toBe('/quick-battle/rooms');
    expect(api.callsTo(EDIT_ROOM)[0]?.body).toEqual({ players: { playerId: ALICE._id, removePlayer: true } });
  });

  it('announces turn changes politely', async () => {
    serve(gameRoom());
    renderApp(ROOM_PATH, { user: ALICE });
    expect(await screen.findByText('Your turn')).toHaveAttribute('aria-live', 'polite');
  });
});
