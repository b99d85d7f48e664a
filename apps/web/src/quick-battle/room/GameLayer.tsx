import type { RoomView } from '@oasis198/contracts';
import { seatToMove, statusBanner, usableOptions, type OasisOption, type Seat } from '@oasis198/game-rules';
import { useState } from 'react';
import { errorMessage, useRoomIntent } from '../../api';
import { T } from '../../texts';
import { Dial, Milestones, OasisPanel, PickOverlay, PlayersHeader, Rounds, TurnTimer } from './GameParts';
import { HelpPanel } from './HelpPanel';
import { countsOf, seatName } from './perspective';
import styles from './Room.module.css';
import { SettingsMenu, useGameMusic } from './SettingsMenu';
import { WaitingAnimation } from './WaitingAnimation';

export function turnText(room: RoomView, mySeat: Seat | null): string {
  const active = seatToMove(room.whosTurn);
  if (active === null) return T.waitingForStart;
  if (mySeat === null) return T.turnOf(seatName(room, active, null));
  return active === mySeat ? T.yourTurn : T.notYourTurn;
}

/**
 * The game layer (SPEC §2): both players, total, timer and milestones, the dial, the Support
 * Oasis panel, the rounds, Settings, help and Exit. Spectators (mySeat null) see it read-only.
 */
export function GameLayer({
  room,
  mySeat,
  helpAllowed,
  onExit,
}: {
  room: RoomView;
  mySeat: Seat | null;
  /** The path's room id matches and the user has not exited (SPEC §2's help panel conditions). */
  helpAllowed: boolean;
  onExit: () => void;
}) {
  const move = useRoomIntent(room._id);
  const [selection, setSelection] = useState<{ option: OasisOption; at: string } | null>(null);
  const [failure, setFailure] = useState<{ at: string; message: string } | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [helpClosed, setHelpClosed] = useState(false);
  useGameMusic(true);

  const w = room.whosTurn;
  const total = w.currentNumber;
  const turnKey = `${w.gameNumber}:${w.moves?.length ?? 0}`;
  const myTurn = mySeat !== null && seatToMove(w) === mySeat;
  const counts = mySeat ? countsOf(room, mySeat) : undefined;
  const usable = counts ? usableOptions(total, counts) : [];
  // A selection belongs to the turn it was made in: after any move it is back to plain.
  const selected =
    selection && selection.at === turnKey && usable.includes(selection.option) ? selection.option : null;
  const banner = statusBanner(total);

  const pick = (number: number | 'random'): void => {
    const at = turnKey;
    move.mutate(
      { move: { number, option: selected ?? 'plain' } },
      { onError: (error) => setFailure({ at, message: errorMessage(error) }) },
    );
  };

  const toggle = (option: OasisOption): void =>
    setSelection(selected === option ? null : { option, at: turnKey });

  const showHelp =
    helpAllowed && !helpClosed && mySeat !== null && counts?.double !== undefined && w.gameStarted;

  return (
    <section className={styles.game} aria-labelledby="game-title">
      <h2 id="game-title" className="visually-hidden">
        {T.quickBattle}
      </h2>
      <div className={styles.gameTop}>
        <PlayersHeader room={room} mySeat={mySeat} />
        {banner ? <p className={styles.banner}>{banner}</p> : null}
        <PickOverlay room={room} mySeat={mySeat} />
      </div>

      <div className={styles.scoreRow}>
        <div className={styles.stat}>
          <span className={styles.statLabel} id="total-label">
            {T.total}
          </span>
          <output className={`${styles.statValue} ${styles.total}`} aria-labelledby="total-label">
            {total}
          </output>
        </div>
        <TurnTimer deadline={w.deadline} />
      </div>

      <Milestones total={total} />

      <p className={`${styles.turn} ${myTurn ? styles.myTurn : ''}`} aria-live="polite">
        {turnText(room, mySeat)}
      </p>

      <div className={styles.playArea}>
        {mySeat !== null ? (
          <div className={styles.dialArea}>
            <Dial disabled={!myTurn || move.isPending} onPick={pick} />
            {failure && failure.at === turnKey ? (
              <p role="alert" className="alert">
                {failure.message}
              </p>
            ) : null}
          </div>
        ) : null}

        {mySeat !== null && counts ? (
          <OasisPanel
            usable={usable}
            counts={counts}
            selected={selected}
            onToggle={toggle}
            disabled={!myTurn || move.isPending}
          />
        ) : null}

        {mySeat !== null && !myTurn && seatToMove(w) !== null ? (
          <section className={styles.pause} aria-labelledby="pause-title">
            <h3 id="pause-title">{T.opponentTurnPause}</h3>
            <p className={styles.pauseNumber}>
              {T.currentNumber}: <strong>{total}</strong>
            </p>
            <WaitingAnimation fill />
          </section>
        ) : null}
      </div>

      <Rounds room={room} mySeat={mySeat} />

      {showHelp && counts ? <HelpPanel counts={counts} onClose={() => setHelpClosed(true)} /> : null}

      <div className={styles.toolbar}>
        <button type="button" className="btn btn-secondary" onClick={() => setSettingsOpen(true)}>
          {T.settings}
        </button>
        <button type="button" className="btn btn-warm" onClick={onExit}>
          {T.exitRoom}
        </button>
      </div>

      {settingsOpen ? <SettingsMenu onClose={() => setSettingsOpen(false)} /> : null}
    </section>
  );
}
