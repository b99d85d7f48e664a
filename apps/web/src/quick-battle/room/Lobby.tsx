import type { RoomView } from '@oasis198/contracts';
import { fromSpecSeconds, PASSCODE_MAX_LENGTH, roomLabel } from '@oasis198/game-rules';
import { useEffect, useEffectEvent, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Field } from '../../components/Field';
import { useServerNow } from '../../components/hooks';
import { Spinner } from '../../components/Spinner';
import { T } from '../../texts';
import styles from './Room.module.css';
import { WaitingAnimation } from './WaitingAnimation';

/** SPEC §4/§9: open rooms are joined automatically 1 s after the player chose to play. */
export const AUTO_JOIN_MS = 1_000;

/** A non-member facing a room with a free spot: play (logged in) or watch. */
export function PlayOrWatch({
  loggedIn,
  onPlay,
  onWatch,
}: {
  loggedIn: boolean;
  onPlay: () => void;
  onWatch: () => void;
}) {
  return (
    <section className={`card ${styles.lobby}`} aria-labelledby="pow-title">
      <h2 id="pow-title">{T.playOrWatch}</h2>
      <p>{loggedIn ? T.playOrWatchIntro : T.visitorIntro}</p>
      <div className={styles.lobbyActions}>
        {loggedIn ? (
          <button type="button" className="btn btn-big" onClick={onPlay}>
            {T.play}
          </button>
        ) : (
          <Link to="/login" className="btn btn-big">
            {T.loginToPlay}
          </Link>
        )}
        <button type="button" className="btn btn-big btn-secondary" onClick={onWatch}>
          {T.watch}
        </button>
      </div>
    </section>
  );
}

/** SPEC §5: a passcode of at most 4 characters; a refusal reads 'Oops, try again!'. */
export function PasscodeEntry({
  onSubmit,
  pending,
  error,
  onWatch,
}: {
  onSubmit: (passCode: string) => void;
  pending: boolean;
  error: string | null;
  onWatch: () => void;
}) {
  const [passCode, setPassCode] = useState('');
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    onSubmit(passCode);
  };
  return (
    <section className={`card ${styles.lobby}`} aria-labelledby="passcode-title">
      <h2 id="passcode-title">{T.passcodeRequired}</h2>
      <p>{T.passcodePrompt}</p>
      <form noValidate onSubmit={submit} className={styles.passcodeForm}>
        <Field
          label={T.passcodeEntry}
          value={passCode}
          onChange={(e) => setPassCode(e.target.value.slice(0, PASSCODE_MAX_LENGTH))}
          maxLength={PASSCODE_MAX_LENGTH}
          inputMode="numeric"
          autoComplete="off"
          placeholder={T.passcodePlaceholder}
          error={error}
        />
        <div className={styles.lobbyActions}>
          <button type="submit" className="btn" disabled={pending}>
            {pending ? <Spinner inline label={T.joining} /> : null}
            {T.joinRoom}
          </button>
          <button type="button" className="btn btn-secondary" onClick={onWatch}>
            {T.watch}
          </button>
        </div>
      </form>
    </section>
  );
}

/** Joins an open room one second after the player chose to play. */
export function AutoJoin({
  onJoin,
  onCancel,
  error,
}: {
  onJoin: () => void;
  onCancel: () => void;
  error: string | null;
}) {
  // One attempt per mount; a failure is shown and the player decides what next.
  const join = useEffectEvent(onJoin);
  useEffect(() => {
    const id = setTimeout(() => join(), AUTO_JOIN_MS);
    return () => clearTimeout(id);
  }, []);
  return (
    <section className={`card ${styles.lobby}`} aria-labelledby="joining-title">
      <h2 id="joining-title">{T.play}</h2>
      {error ? (
        <p role="alert" className="alert">
          {error}
        </p>
      ) : (
        <Spinner label={T.joining} />
      )}
      <div className={styles.lobbyActions}>
        <button type="button" className="btn btn-secondary" onClick={onCancel}>
          {T.watch}
        </button>
      </div>
    </section>
  );
}

/** "The AI joins in 12 s": a room created with the AI option, while it waits for a person. */
function AiCountdown({ joinsAt }: { joinsAt: number }) {
  const now = useServerNow(1000);
  const seconds = Math.max(0, Math.ceil((fromSpecSeconds(joinsAt) - now) / 1000));
  return (
    <p className={styles.aiCountdown} role="status">
      {T.aiJoinsIn(seconds)}
    </p>
  );
}

/** Fewer than 2 players: a member waits for an opponent, a spectator for the game. */
export function WaitingPanel({
  room,
  member,
  onExit,
  onPlay,
}: {
  room: RoomView;
  member: boolean;
  onExit?: () => void;
  onPlay?: () => void;
}) {
  return (
    <section className={`card ${styles.waiting}`} aria-labelledby="waiting-title">
      <h2 id="waiting-title">{T.waitingTitle}</h2>
      <p>{member ? T.waitingIntro(roomLabel(room._id)) : T.waitingSpectator}</p>
      <p className={styles.roomFacts}>
        <span>{T.roomSeconds(room.duration)}</span>
        <span>{T.roomPlayers(room.players.length)}</span>
        {room.hasPassCode ? <span>{T.passcodeRequired}</span> : null}
      </p>
      {typeof room.aiJoinsAt === 'number' ? <AiCountdown joinsAt={room.aiJoinsAt} /> : null}
      <WaitingAnimation />
      <div className={styles.lobbyActions}>
        {onPlay ? (
          <button type="button" className="btn" onClick={onPlay}>
            {T.play}
          </button>
        ) : null}
        {member && onExit ? (
          <button type="button" className="btn btn-secondary" onClick={onExit}>
            {T.exitRoom}
          </button>
        ) : null}
      </div>
    </section>
  );
}
