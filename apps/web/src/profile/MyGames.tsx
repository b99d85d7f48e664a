import { GAME_HISTORY_SIZE, type PlayedGame } from '@oasis198/contracts';
import { isAiPlayerId } from '@oasis198/game-rules';
import { Fragment, useId, useMemo, useState } from 'react';
import { errorMessage, useGameHistory, usePlayedGame } from '../api';
import { LoadError } from '../components/LoadError';
import { Spinner } from '../components/Spinner';
import { T } from '../texts';
import styles from './MyGames.module.css';
import { checkPlayedGame, type GameCheck } from './verify-game';

const dateFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** When a game ended, in the player's own time zone: "2 Jan 2026, 09:05". */
export const formatGameDate = (iso: string): string => dateFormat.format(new Date(iso));

/** The opponent as the list names them: the AI (`ai:<roomId>`) is "the AI". */
export const opponentName = (game: PlayedGame): string =>
  isAiPlayerId(game.opponent.id) ? T.theAi : game.opponent.name;

/** The player's last games, each with a Verify button that replays it in the browser. */
export function MyGames({ userId }: { userId: string }) {
  const history = useGameHistory(userId);
  const headingId = useId();
  let body;
  if (history.data && history.data.length === 0) {
    body = <p className={styles.muted}>{T.noGamesYet}</p>;
  } else if (history.data) {
    body = (
      <div className={styles.scroll}>
        <table className={styles.table}>
          <caption className="visually-hidden">{T.gamesTable}</caption>
          <thead>
            <tr>
              <th scope="col" className={styles.wideOnly}>
                {T.gameDate}
              </th>
              <th scope="col">{T.gameOpponent}</th>
              <th scope="col">{T.gameResult}</th>
              <th scope="col" className={styles.wideOnly}>
                {T.gameEndReason}
              </th>
              <th scope="col" className={styles.number}>
                {T.gameMoves}
              </th>
              <th scope="col">{T.fairPlay}</th>
            </tr>
          </thead>
          <tbody>
            {history.data.map((game) => (
              <GameRow key={game.gameId} game={game} userId={userId} />
            ))}
          </tbody>
        </table>
      </div>
    );
  } else if (history.isError) {
    body = <LoadError error={history.error} onRetry={() => void history.refetch()} />;
  } else {
    body = <Spinner />;
  }
  return (
    <section className={`card ${styles.myGames}`} aria-labelledby={headingId}>
      <h2 id={headingId} className={styles.title}>
        {T.myGames}
      </h2>
      <p className={styles.muted}>{T.myGamesIntro(GAME_HISTORY_SIZE)}</p>
      {body}
    </section>
  );
}

/**
 * One game, and once verified, what the replay found in a row of its own below it. On a phone the
 * date and the end reason columns are only there for screen readers; their text shows under the
 * opponent and the result instead (aria-hidden copies), so the row fits without scrolling.
 */
function GameRow({ game, userId }: { game: PlayedGame; userId: string }) {
  const fetchGame = usePlayedGame(userId);
  const date = formatGameDate(game.finishedAt);
  const opponent = opponentName(game);
  const reason = T.endReasons[game.endReason] ?? game.endReason;
  // A game the list says has no moves is not fetched: Verify says so at once.
  const [notRecorded, setNotRecorded] = useState(false);
  // The replay hashes every move's AI number: once per fetched game, not once per render.
  const fetched = useMemo(() => (fetchGame.data ? checkPlayedGame(fetchGame.data) : null), [fetchGame.data]);
  const check: GameCheck | null = notRecorded ? { kind: 'unverifiable', reason: 'not-recorded' } : fetched;
  return (
    <Fragment>
      <tr className={check ? styles.checkedRow : undefined}>
        <td className={styles.wideOnly}>
          <time dateTime={game.finishedAt}>{date}</time>
        </td>
        <td>
          <span className={isAiPlayerId(game.opponent.id) ? styles.ai : undefined}>{opponent}</span>
          {/* An Event cup arena's game, marked with its event (DECISIONS "Event cup arenas"). */}
          {game.event ? <span className={styles.event}>{T.arenaGame(game.event)}</span> : null}
          <span className={styles.phoneOnly} aria-hidden="true">
            {date}
          </span>
        </td>
        <td>
          <span className={styles[game.result]}>{T.results[game.result] ?? game.result}</span>
          <span className={styles.phoneOnly} aria-hidden="true">
            {reason}
          </span>
        </td>
        <td className={styles.wideOnly}>{reason}</td>
        <td className={styles.number}>{game.moves}</td>
        <td>
          <button
            type="button"
            className={`btn btn-secondary ${styles.verify}`}
            aria-label={T.verifyGame(opponent, date)}
            disabled={fetchGame.isPending}
            onClick={() => (game.verifiable ? fetchGame.mutate(game.gameId) : setNotRecorded(true))}
          >
            {fetchGame.isPending ? T.verifying : T.verify}
          </button>
        </td>
      </tr>
      {check || fetchGame.isError ? (
        <tr className={styles.reportRow}>
          <td colSpan={6}>
            <div role="status" className={styles.report}>
              {check ? (
                <CheckReport check={check} />
              ) : (
                <p className="alert">{errorMessage(fetchGame.error)}</p>
              )}
            </div>
          </td>
        </tr>
      ) : null}
    </Fragment>
  );
}

function CheckReport({ check }: { check: GameCheck }) {
  if (check.kind === 'unverifiable') {
    return <p className={styles.flush}>{check.reason === 'no-seed' ? T.noSeed : T.notRecorded}</p>;
  }
  return (
    <>
      <p className={`${styles.flush} ${check.aiValid ? styles.pass : styles.fail}`}>
        <span aria-hidden="true">{check.aiValid ? '✓ ' : '✗ '}</span>
        {check.aiValid ? T.aiVerified : T.aiNotVerified}
      </p>
      <p className={`${styles.flush} ${check.rulesValid ? styles.pass : styles.fail}`}>
        <span aria-hidden="true">{check.rulesValid ? '✓ ' : '✗ '}</span>
        {check.rulesValid ? T.movesVerified : T.movesNotVerified}
      </p>
      <p className={styles.flush}>{T.replayed(check.replayed)}</p>
      {check.problems.length ? (
        <ul className={styles.problems}>
          {check.problems.slice(0, 5).map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
