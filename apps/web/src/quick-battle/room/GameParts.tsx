import type { RoomView } from '@oasis198/contracts';
import {
  isWeak,
  milestones,
  OASIS_OPTIONS,
  OPTION_LABELS,
  PICK_MAX,
  PICK_MIN,
  remainingSeconds,
  SEATS,
  seatToMove,
  type MoveRecord,
  type OasisCounts,
  type OasisOption,
  type Seat,
} from '@oasis198/game-rules';
import { useState } from 'react';
import { useServerNow, useTimedFlag } from '../../components/hooks';
import { T } from '../../texts';
import { playerAt, seatName } from './perspective';
import styles from './Room.module.css';

/** SPEC §4/§9: the picked number and the AI's number show for 2.4 s after each move. */
export const PICK_OVERLAY_MS = 2_400;

/** Both players: 'You' and 'Opponent' (or 'Empty Spot') for a player, both names for spectators. */
export function PlayersHeader({ room, mySeat }: { room: RoomView; mySeat: Seat | null }) {
  const active = room.gameOver ? null : seatToMove(room.whosTurn);
  // A player sees themself first.
  const order: readonly Seat[] = mySeat === 'player2' ? ['player2', 'player1'] : SEATS;
  return (
    <ul className={styles.players} aria-label={T.players}>
      {order.map((seat) => {
        const person = playerAt(room, seat);
        const label = seatName(room, seat, mySeat);
        const isActive = active === seat;
        return (
          <li
            key={seat}
            className={`${styles.player} ${isActive ? styles.activePlayer : ''}`}
            aria-current={isActive ? 'true' : undefined}
          >
            <span className={styles.playerLabel}>{label}</span>
            {mySeat !== null && person ? <span className={styles.playerName}>{person.name}</span> : null}
            {isActive ? <span className={styles.turnMark}>{T.playing}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}

/** Counts down to the turn's deadline on the server's clock; 'Weak' below -6 s. */
export function TurnTimer({ deadline }: { deadline: number | null }) {
  const now = useServerNow(250);
  const remaining = remainingSeconds({ deadline }, now);
  let text = '—';
  let urgent = false;
  if (remaining !== null) {
    if (isWeak(remaining)) {
      text = T.weak;
      urgent = true;
    } else {
      const whole = Math.ceil(remaining);
      text = T.seconds(whole === 0 ? 0 : whole);
      urgent = remaining <= 5;
    }
  }
  return (
    <div className={`${styles.stat} ${urgent ? styles.urgent : ''}`}>
      <span className={styles.statLabel} id="timer-label">
        {T.timer}
      </span>
      <span role="timer" aria-labelledby="timer-label" className={styles.statValue}>
        {text}
      </span>
    </div>
  );
}

export function Milestones({ total }: { total: number }) {
  return (
    <section aria-labelledby="milestones-title" className={styles.milestones}>
      <h3 id="milestones-title" className="visually-hidden">
        {T.milestones}
      </h3>
      <ol>
        {milestones(total).map(({ milestone, reached }) => (
          <li key={milestone} className={reached ? styles.reached : styles.pending}>
            <span className={styles.milestoneNumber}>
              {/* A phone shows the number alone; the word stays for screen readers. */}
              <span className={styles.milestoneWord}>{T.milestoneWord} </span>
              {milestone}
            </span>
            <span>{reached ? T.milestoneReached : T.milestonePending}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

const PICKS = Array.from({ length: PICK_MAX - PICK_MIN + 1 }, (_, i) => PICK_MIN + i);

/** Random and 1..9. Only the player whose turn it is can pick. */
export function Dial({ disabled, onPick }: { disabled: boolean; onPick: (n: number | 'random') => void }) {
  return (
    <div role="group" aria-label={T.dial} className={styles.dial}>
      {PICKS.map((n) => (
        <button
          key={n}
          type="button"
          className={styles.dialKey}
          disabled={disabled}
          onClick={() => onPick(n)}
        >
          {n}
        </button>
      ))}
      <button
        type="button"
        className={`${styles.dialKey} ${styles.randomKey}`}
        disabled={disabled}
        onClick={() => onPick('random')}
      >
        {T.random}
      </button>
    </div>
  );
}

/**
 * Support Oasis: only the options legal now (offered at this total, with uses left), each with its
 * remaining uses. Clicking the selected one again goes back to a plain pick.
 */
export function OasisPanel({
  usable,
  counts,
  selected,
  onToggle,
  disabled,
}: {
  usable: readonly OasisOption[];
  counts: OasisCounts;
  selected: OasisOption | null;
  onToggle: (option: OasisOption) => void;
  disabled: boolean;
}) {
  return (
    <section aria-labelledby="oasis-title" className={styles.oasis}>
      <h3 id="oasis-title">{T.supportOasis}</h3>
      {usable.length === 0 ? <p className={styles.muted}>{T.oasisNone}</p> : null}
      <div className={styles.oasisOptions}>
        {OASIS_OPTIONS.filter((o) => usable.includes(o)).map((option) => (
          <button
            key={option}
            type="button"
            className={styles.oasisOption}
            aria-pressed={selected === option}
            disabled={disabled}
            onClick={() => onToggle(option)}
          >
            <span className={styles.oasisLabel}>{OPTION_LABELS[option]}</span>
            <span className={styles.oasisCount}>{T.uses(counts[option])}</span>
          </button>
        ))}
      </div>
      <p className={styles.matched}>
        {T.matched}: <strong>{counts.matched}</strong>
      </p>
    </section>
  );
}

export function moveWho(room: RoomView, move: MoveRecord, mySeat: Seat | null): string {
  return seatName(room, move.player, mySeat);
}

/** The rounds display: how many moves so far and the latest ones with their AI numbers. */
export function Rounds({ room, mySeat }: { room: RoomView; mySeat: Seat | null }) {
  const moves = room.whosTurn.moves ?? [];
  const recent = moves.slice(-6).reverse();
  return (
    <section aria-labelledby="rounds-title" className={styles.rounds}>
      <h3 id="rounds-title">
        {T.rounds}: {moves.length}
      </h3>
      {recent.length === 0 ? <p className={styles.muted}>{T.noMovesYet}</p> : null}
      <ol className={styles.moveList} reversed start={moves.length}>
        {recent.map((move, i) => (
          <li key={`${moves.length - i}`}>
            {T.moveLine(
              moveWho(room, move, mySeat),
              move.number,
              move.option === 'plain' ? '' : OPTION_LABELS[move.option],
              move.aiNumber,
              move.total,
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

/**
 * After every move (yours or the opponent's) the pick and the AI's number show for 2.4 s, over the
 * players and the status banner: never over the total, the clock or the milestones.
 */
export function PickOverlay({ room, mySeat }: { room: RoomView; mySeat: Seat | null }) {
  const moves = room.whosTurn.moves ?? [];
  const key = `${room.whosTurn.gameNumber}:${moves.length}`;
  // Moves already made when the screen opened are not replayed.
  const [baseline] = useState(key);
  const last = moves[moves.length - 1];
  const shown = useTimedFlag(last && key !== baseline ? key : null, PICK_OVERLAY_MS);
  if (!shown || !last) return null;
  return (
    <div className={styles.pickOverlay} role="status">
      <p className={styles.pickMain}>
        {T.picked(moveWho(room, last, mySeat), last.number)}
        {last.option !== 'plain' ? (
          <span className={styles.pickOption}> · {OPTION_LABELS[last.option]}</span>
        ) : null}
      </p>
      <p className={styles.pickAi}>
        {T.aiPicked(last.aiNumber)}
        {last.number === last.aiNumber ? <span className={styles.pickMatch}> · {T.itsAMatch}</span> : null}
      </p>
    </div>
  );
}
