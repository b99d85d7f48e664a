import type { RoomView } from '@oasis198/contracts';
import {
  isAbortedGame,
  otherSeat,
  READY_WINDOW,
  SEATS,
  toSpecSeconds,
  verifyAiNumbers,
  type Seat,
} from '@oasis198/game-rules';
import { useMemo, useState } from 'react';
import { errorMessage, useRoomIntent } from '../../api';
import { useServerNow } from '../../components/hooks';
import { T } from '../../texts';
import { PlayersHeader } from './GameParts';
import { playerAt, seatName } from './perspective';
import { useRoomPlace } from './room-place';
import styles from './Room.module.css';

/** SPEC §4: the post-game countdown is displayed 5 s short of the 50 s window. */
export const COUNTDOWN_DISPLAY_OFFSET = 5;

function resultText(room: RoomView, mySeat: Seat | null): string {
  const { winner, endReason } = room.whosTurn;
  // A draw has no winner: the same text for both players and for spectators.
  if (endReason === 'moveLimit') return T.draw;
  // Nor has an aborted game: the reason below still says who left or ran out of time.
  if (isAbortedGame(room.whosTurn)) return T.aborted;
  if (!winner) return '';
  if (mySeat) return winner === mySeat ? T.youWon : T.youLost;
  return T.playerWon(playerAt(room, winner)?.name ?? T.opponent);
}

function reasonText(room: RoomView, mySeat: Seat | null): string | null {
  const { winner, endReason } = room.whosTurn;
  if (!winner || !endReason || endReason === 'moveLimit') return null;
  const name = (seat: Seat): string =>
    mySeat ? seatName(room, seat, mySeat) : (playerAt(room, seat)?.name ?? '');
  if (endReason === 'reached198') return T.endReason.reached198(name(winner));
  return T.endReason[endReason](name(otherSeat(winner)));
}

/**
 * The game-over layer: result, Play Again, Exit Game, countdown, explanation and who is ready.
 * A room played once (an arena's: the server refuses Play Again) keeps only the result, the
 * reasons, the fair-play check and Exit Game.
 */
export function GameOver({
  room,
  mySeat,
  onLeave,
  leaving,
}: {
  room: RoomView;
  mySeat: Seat | null;
  onLeave: () => void;
  leaving: boolean;
}) {
  const { rematch } = useRoomPlace();
  const ready = useRoomIntent(room._id);
  const [failure, setFailure] = useState<string | null>(null);
  const now = toSpecSeconds(useServerNow(500));
  const w = room.whosTurn;
  const endedAt = w.endedAt ?? w.turnStart;
  const windowEnd = endedAt + READY_WINDOW;
  const countdown = Math.max(0, Math.ceil(windowEnd - COUNTDOWN_DISPLAY_OFFSET - now));
  const windowOpen = now <= windowEnd;
  const iAmReady = mySeat !== null && w[mySeat].restart;
  const result = resultText(room, mySeat);
  const aborted = isAbortedGame(w);
  const won = mySeat !== null && w.winner === mySeat && !aborted;
  const { aiSeed, aiCommit } = room;
  // DECISIONS.md "Fair play": the seed revealed now must hash to the commitment shown since the
  // start and give every AI number (a game without moves still checks the commitment). A game
  // started before fair play has neither, so there is nothing to check.
  const moves = w.moves;
  const aiCheck = useMemo(
    () => (aiSeed && aiCommit ? verifyAiNumbers(aiSeed, aiCommit, moves ?? []) : null),
    [aiSeed, aiCommit, moves],
  );

  const playAgain = (): void => {
    if (!mySeat) return;
    setFailure(null);
    ready.mutate(
      { whosTurnReadyPlayer: { [mySeat]: { turn: false, restart: true } } },
      { onError: (error) => setFailure(errorMessage(error)) },
    );
  };

  return (
    <section className={styles.gameOver} aria-labelledby="result-title">
      <PlayersHeader room={room} mySeat={mySeat} />
      <h2
        id="result-title"
        className={`${styles.result} ${mySeat === null || w.winner === null || aborted ? '' : won ? styles.won : styles.lost}`}
        aria-live="assertive"
      >
        {result}
      </h2>
      <p className={styles.finalTotal}>
        {T.total}: <strong>{w.currentNumber}</strong>
      </p>

      {rematch ? (
        <div className={styles.countdown}>
          {windowOpen ? (
            <span role="timer" aria-label={T.playAgainWithin(countdown)}>
              {T.playAgainWithin(countdown)}
            </span>
          ) : (
            <span>{T.playAgainClosed}</span>
          )}
        </div>
      ) : null}

      <div className={styles.explain}>
        {reasonText(room, mySeat) ? <p>{reasonText(room, mySeat)}</p> : null}
        {aborted ? <p>{T.abortedHelp}</p> : null}
        {rematch ? <p>{T.gameOverHelp}</p> : null}
        {aiCheck ? (
          <>
            <p>{aiCheck.valid ? T.aiVerified : T.aiNotVerified}</p>
            <details className={styles.aiProof}>
              <summary>{T.aiCheckYourself}</summary>
              <dl>
                <dt>{T.aiCommitLabel}</dt>
                <dd>
                  <code>{aiCommit}</code>
                </dd>
                <dt>{T.aiSeedLabel}</dt>
                <dd>
                  <code>{aiSeed}</code>
                </dd>
              </dl>
              <p>{T.aiCheckHow}</p>
            </details>
          </>
        ) : null}
      </div>

      {rematch ? (
        <ul className={styles.readyPanel} aria-label={T.readyToPlay}>
          {(mySeat === 'player2' ? (['player2', 'player1'] as const) : SEATS).map((seat) => (
            <li key={seat} className={w[seat].restart ? styles.isReady : ''}>
              <span className={styles.playerLabel}>{seatName(room, seat, mySeat)}</span>
              <span>{w[seat].restart ? T.readyToPlay : T.thinking}</span>
            </li>
          ))}
        </ul>
      ) : null}

      {failure ? (
        <p role="alert" className="alert">
          {failure}
        </p>
      ) : null}

      <div className={styles.toolbar}>
        {rematch && mySeat !== null && windowOpen ? (
          <button
            type="button"
            className="btn btn-big"
            onClick={playAgain}
            disabled={iAmReady || ready.isPending}
          >
            {T.playAgain}
          </button>
        ) : null}
        <button type="button" className="btn btn-big btn-secondary" onClick={onLeave} disabled={leaving}>
          {leaving ? T.leaving : T.exitGame}
        </button>
      </div>
    </section>
  );
}
