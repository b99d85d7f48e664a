import type { RoomView } from '@oasis198/contracts';
import {
  DEFAULT_TURN_DURATION,
  GAME_TYPES,
  PASSCODE_MAX_LENGTH,
  roomLabel,
  TURN_DURATIONS,
  validateCreatePasscode,
  validateDuration,
  validateGameType,
  type GameType,
  type TurnDuration,
} from '@oasis198/game-rules';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router-dom';
import { errorMessage, useCreateRoom, useSession } from '../api';
import { useTimeouts } from '../components/hooks';
import { Field } from '../components/Field';
import { RadioGroup, type RadioOption } from '../components/RadioGroup';
import { Spinner } from '../components/Spinner';
import { T } from '../texts';
import styles from './QuickBattle.module.css';

/** SPEC §4/§9: the Create button is locked for 15 s after a submit. */
export const CREATE_LOCK_MS = 15_000;
/** After success, go to the room after 2 s; after an error, back to /quick-battle after 4 s. */
export const CREATED_REDIRECT_MS = 2_000;
export const CREATE_ERROR_REDIRECT_MS = 4_000;

/** Only quick-battle rooms can be played for now; tournaments are unavailable (SPEC §1). */
const ENABLED_TYPES: readonly GameType[] = ['quick-battle'];
const GAME_TYPE_OPTIONS: readonly RadioOption<GameType>[] = GAME_TYPES.map((type) => ({
  value: type,
  label: T.gameTypes[type],
  disabled: !ENABLED_TYPES.includes(type),
}));
const DURATION_OPTIONS: readonly RadioOption<TurnDuration>[] = TURN_DURATIONS.map((seconds) => ({
  value: seconds,
  label: T.durationLabel(seconds),
}));

export function CreateRoom() {
  const user = useSession();
  const navigate = useNavigate();
  const create = useCreateRoom();
  const later = useTimeouts();
  const [gameType, setGameType] = useState<GameType>('quick-battle');
  const [duration, setDuration] = useState<TurnDuration>(DEFAULT_TURN_DURATION);
  const [passCode, setPassCode] = useState('');
  const [aiOpponent, setAiOpponent] = useState(false);
  const [passError, setPassError] = useState<string | null>(null);
  const [locked, setLocked] = useState(false);
  const [created, setCreated] = useState<RoomView | null>(null);
  const [failed, setFailed] = useState<string | null>(null);

  if (!user && !created) return <Navigate to="/login" replace />;

  if (created) {
    return (
      <div className="page-narrow">
        <section className={`card ${styles.redirect}`} aria-live="polite">
          <Spinner label={T.roomReady(roomLabel(created._id))} />
        </section>
      </div>
    );
  }

  const onSubmit = (event: FormEvent): void => {
    event.preventDefault();
    if (locked || !user) return;
    const problem = validateCreatePasscode(passCode);
    setPassError(problem);
    // SPEC §5: a create with a missing or invalid field is blocked.
    if (problem || validateGameType(gameType) || validateDuration(duration)) return;
    setLocked(true);
    later(() => setLocked(false), CREATE_LOCK_MS);
    create.mutate(
      {
        gameType,
        createdBy: { id: user._id, name: user.name },
        duration,
        passCode,
        // SPEC's create body as it is, unless the creator chose the AI option.
        ...(aiOpponent ? { aiOpponent: true } : {}),
      },
      {
        onSuccess: (room) => {
          setCreated(room);
          later(
            () =>
              navigate(`/${room.gameType}/rooms/${room._id}`, { replace: true, state: { intent: 'play' } }),
            CREATED_REDIRECT_MS,
          );
        },
        onError: (error) => {
          setFailed(errorMessage(error));
          later(() => navigate('/quick-battle'), CREATE_ERROR_REDIRECT_MS);
        },
      },
    );
  };

  return (
    <div className="page-narrow">
      <section className={`card ${styles.create}`} aria-labelledby="create-title">
        <div className={styles.createHead}>
          <h1 id="create-title">{T.createTitle}</h1>
          <Link to="/quick-battle" className="icon-btn" aria-label={T.closeCreate}>
            <span aria-hidden="true">✕</span>
          </Link>
        </div>
        <form noValidate onSubmit={onSubmit}>
          <RadioGroup
            legend={T.gameType}
            name="gameType"
            options={GAME_TYPE_OPTIONS}
            value={gameType}
            onChange={setGameType}
            className={styles.options}
            optionClassName={styles.option}
          />
          <RadioGroup
            legend={T.turnDuration}
            name="duration"
            options={DURATION_OPTIONS}
            value={duration}
            onChange={setDuration}
            className={styles.options}
            optionClassName={styles.option}
          />
          <Field
            label={T.passcodeLabel}
            placeholder={T.passcodePlaceholder}
            inputMode="numeric"
            autoComplete="off"
            maxLength={PASSCODE_MAX_LENGTH}
            value={passCode}
            onChange={(e) => setPassCode(e.target.value)}
            error={passError}
          />
          <label className={`${styles.option} ${styles.aiChoice}`}>
            <input type="checkbox" checked={aiOpponent} onChange={(e) => setAiOpponent(e.target.checked)} />
            <span>{T.aiOpponent}</span>
          </label>
          <button type="submit" className="btn btn-big" disabled={locked}>
            {create.isPending ? <Spinner inline label={T.creatingRoom} /> : null}
            {locked ? T.creatingRoom : T.create}
          </button>
        </form>
        {failed ? (
          <div role="alert" className={`alert ${styles.createError}`}>
            <p className={styles.flush}>{T.createError}</p>
            {failed !== T.createError ? <p className={styles.detail}>{failed}</p> : null}
          </div>
        ) : null}
      </section>
    </div>
  );
}
