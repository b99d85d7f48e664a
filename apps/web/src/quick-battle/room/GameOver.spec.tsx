import type { RoomView } from '@oasis198/contracts';
import { aiNumber, type MoveRecord, type Seat } from '@oasis198/game-rules';
import { screen, within } from '@testing-library/react';
import { fakeApi, type Handler } from '../../testing/fake-network';
import {
  AI_COMMIT,
  AI_SEED,
  ALICE,
  BOB,
  CAROL,
  EDIT_ROOM,
  GET_ROOM,
  nowSpec,
  overRoom,
  ROOM_PATH,
} from '../../testing/fixtures';
import { renderApp } from '../../testing/render';

function serve(initial: RoomView, extra: Record<string, Handler> = {}) {
  return fakeApi({ [GET_ROOM]: { body: initial }, ...extra });
}

/** The room as the server answers Play Again: the seat ready, the version one higher. */
const readied = (room: RoomView, seat: Seat): RoomView => ({
  ...room,
  version: room.version + 1,
  whosTurn: { ...room.whosTurn, [seat]: { turn: false, restart: true } },
});

const readyPanel = () => within(screen.getByRole('list', { name: 'Ready To Play' })).getAllByRole('listitem');

describe('room screen: game over', () => {
  it('shows the win, the countdown and the explanation; Play Again marks your seat ready', async () => {
    const won = overRoom('player1');
    const api = serve(won, { [EDIT_ROOM]: { body: { room: readied(won, 'player1') } } });
    const { user } = renderApp(ROOM_PATH, { user: ALICE });

    expect(await screen.findByRole('heading', { name: 'You won!' })).toBeInTheDocument();
    // Ended 3 s ago: 50 s window, shown 5 s short.
    expect(screen.getByRole('timer')).toHaveTextContent('Play again within 42 s');
    expect(screen.getByText('You brought the total to 198 or more.')).toBeInTheDocument();
    expect(screen.getByText(/Press Play Again to ask for a rematch/)).toBeInTheDocument();
    expect(readyPanel().map((li) => li.textContent)).toEqual(['YouThinking...', 'OpponentThinking...']);

    await user.click(screen.getByRole('button', { name: 'Play Again' }));
    expect(api.callsTo(EDIT_ROOM)[0]?.body).toEqual({
      whosTurnReadyPlayer: { player1: { turn: false, restart: true } },
    });
    expect(await screen.findByText('Ready To Play', { selector: 'span' })).toBeInTheDocument();
    expect(readyPanel().map((li) => li.textContent)).toEqual(['YouReady To Play', 'OpponentThinking...']);
    expect(screen.getByRole('button', { name: 'Play Again' })).toBeDisabled();
  });

  it('shows the loss to the other player, who readies their own seat', async () => {
    const api = serve(overRoom('player1'), { [EDIT_ROOM]: { body: { room: overRoom('player1') } } });
    const { user } = renderApp(ROOM_PATH, { user: BOB });
    expect(await screen.findByRole('heading', { name: 'You lost' })).toBeInTheDocument();
    expect(screen.getByText('Opponent brought the total to 198 or more.')).toBeInTheDocument();
    // Their own seat first, as in the players header.
    expect(readyPanel().map((li) => li.textContent)).toEqual(['YouThinking...', 'OpponentThinking...']);
    await user.click(screen.getByRole('button', { name: 'Play Again' }));
    expect(api.callsTo(EDIT_ROOM)[0]?.body).toEqual({
      whosTurnReadyPlayer: { player2: { turn: false, restart: true } },
    });
  });

  /** Two moves, one by each player: a game that ends after them is not aborted. */
  const bothMoved = (seed = AI_SEED): MoveRecord[] => [
    { player: 'player1', number: 9, option: 'plain', aiNumber: aiNumber(seed, 0), total: 9, at: nowSpec() },
    { player: 'player2', number: 2, option: 'plain', aiNumber: aiNumber(seed, 1), total: 11, at: nowSpec() },
  ];

  it("explains a timeout, and shows spectators '{name} won' without Play Again", async () => {
    serve(overRoom('player2', { endReason: 'timeout', currentNumber: 11, moves: bothMoved() }));
    renderApp(ROOM_PATH, { user: CAROL });
    expect(await screen.findByRole('heading', { name: 'bob won' })).toBeInTheDocument();
    expect(screen.getByText('alice ran out of time.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Play Again' })).not.toBeInTheDocument();
    expect(readyPanel().map((li) => li.textContent)).toEqual(['aliceThinking...', 'bobThinking...']);
  });

  describe('an aborted game (DECISIONS.md "Aborted games": a player never moved)', () => {
    it.each([
      ['the player who ran out of time', ALICE, 'You ran out of time.'],
      ['the other player', BOB, 'Opponent ran out of time.'],
      ['a spectator', CAROL, 'alice ran out of time.'],
    ])('reads "Game aborted" for %s, says why, and that it pays nothing', async (_who, viewer, why) => {
      serve(overRoom('player2', { endReason: 'timeout', currentNumber: 9, moves: bothMoved().slice(0, 1) }));
      renderApp(ROOM_PATH, { user: viewer });
      const heading = await screen.findByRole('heading', { name: 'Game aborted' });
      expect(heading.className).not.toMatch(/won|lost/);
      expect(screen.queryByText(/You won|You lost| won$/)).not.toBeInTheDocument();
      expect(screen.getByText(why)).toBeInTheDocument();
      expect(screen.getByText(/no points, coins or played game/)).toBeInTheDocument();
    });

    it('reads "Game aborted" after a leave before any move, and still offers Play Again', async () => {
      serve(overRoom('player1', { endReason: 'left', moves: [] }));
      renderApp(ROOM_PATH, { user: ALICE });
      expect(await screen.findByRole('heading', { name: 'Game aborted' })).toBeInTheDocument();
      expect(screen.getByText('Opponent left the game.')).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Play Again' })).toBeInTheDocument();
    });
  });

  it('hides Play Again once the ready window is over', async () => {
    serve(overRoom('player1', { endedAt: nowSpec() - 55 }));
    renderApp(ROOM_PATH, { user: ALICE });
    expect(await screen.findByText('The time to play again is over.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Play Again' })).not.toBeInTheDocument();
  });

  describe('checks the AI numbers against the commitment (DECISIONS.md "Fair play")', () => {
    /** Two moves whose AI numbers follow from the fixtures' seed. */
    const movesOf = (seed: string): MoveRecord[] => [
      { player: 'player1', number: 9, option: 'plain', aiNumber: aiNumber(seed, 0), total: 9, at: nowSpec() },
      {
        player: 'player2',
        number: 2,
        option: 'plain',
        aiNumber: aiNumber(seed, 1),
        total: 11,
        at: nowSpec(),
      },
    ];

    it('says every AI number checks out, and shows the commitment and the seed to check by hand', async () => {
      serve(overRoom('player2', { moves: movesOf(AI_SEED) }));
      const { user } = renderApp(ROOM_PATH, { user: ALICE });
      expect(await screen.findByText('Every AI number of this game checks out.')).toBeInTheDocument();
      expect(screen.queryByText('These AI numbers do not match the commitment.')).not.toBeInTheDocument();
      await user.click(screen.getByText('Check it yourself'));
      expect(screen.getByText(AI_COMMIT)).toBeVisible();
      expect(screen.getByText(AI_SEED)).toBeVisible();
    });

    it('says they do not match when one AI number differs from what the seed gives', async () => {
      const [first, second] = movesOf(AI_SEED) as [MoveRecord, MoveRecord];
      const tampered = { ...second, aiNumber: (second.aiNumber % 9) + 1 };
      serve(overRoom('player2', { moves: [first, tampered] }));
      renderApp(ROOM_PATH, { user: CAROL });
      expect(await screen.findByText('These AI numbers do not match the commitment.')).toBeInTheDocument();
      expect(screen.queryByText('Every AI number of this game checks out.')).not.toBeInTheDocument();
    });

    it('checks the commitment even for a game without moves', async () => {
      const other = '00'.repeat(32);
      const room = overRoom('player1', { moves: [] });
      serve({ ...room, aiSeed: other, whosTurn: { ...room.whosTurn, aiSeed: other } });
      renderApp(ROOM_PATH, { user: BOB });
      expect(await screen.findByText('These AI numbers do not match the commitment.')).toBeInTheDocument();
    });

    it('checks an honest game without moves as fine', async () => {
      serve(overRoom('player1', { moves: [], endReason: 'left' }));
      renderApp(ROOM_PATH, { user: BOB });
      expect(await screen.findByText('Every AI number of this game checks out.')).toBeInTheDocument();
    });
  });

  describe('a draw at the move limit', () => {
    it.each([
      ['player 1', ALICE],
      ['player 2', BOB],
      ['a spectator', CAROL],
    ])(
      'reads "Draw: the move limit was reached." for %s, with no won or lost state',
      async (_who, viewer) => {
        serve(overRoom(null, { currentNumber: 150 }));
        renderApp(ROOM_PATH, { user: viewer });
        const heading = await screen.findByRole('heading', { name: 'Draw: the move limit was reached.' });
        expect(heading.className).not.toMatch(/won|lost/);
        expect(screen.queryByText(/You won|You lost| won$/)).not.toBeInTheDocument();
        expect(screen.getByText('Every AI number of this game checks out.')).toBeInTheDocument();
      },
    );

    it('lets a player press Play Again after a draw', async () => {
      const drawn = overRoom(null);
      const api = serve(drawn, { [EDIT_ROOM]: { body: { room: readied(drawn, 'player2') } } });
      const { user } = renderApp(ROOM_PATH, { user: BOB });
      await user.click(await screen.findByRole('button', { name: 'Play Again' }));
      expect(api.callsTo(EDIT_ROOM)[0]?.body).toEqual({
        whosTurnReadyPlayer: { player2: { turn: false, restart: true } },
      });
      expect(await screen.findByText('Ready To Play', { selector: 'span' })).toBeInTheDocument();
    });
  });

  it('leaves with Exit Game', async () => {
    const api = serve(overRoom('player1'), {
      [EDIT_ROOM]: { body: { room: overRoom('player1') } },
      'GET /api/rooms/': { body: [] },
    });
    const { user, router } = renderApp(ROOM_PATH, { user: ALICE });
    await user.click(await screen.findByRole('button', { name: 'Exit Game' }));
    await screen.findByRole('heading', { name: 'Rooms' });
    expect(router.state.location.pathname).toBe('/quick-battle/rooms');
    expect(api.callsTo(EDIT_ROOM)[0]?.body).toEqual({ players: { playerId: ALICE._id, removePlayer: true } });
  });
});
