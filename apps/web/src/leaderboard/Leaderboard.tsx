import { type RankedReward, REWARDS_PAGE_SIZE } from '@oasis198/contracts';
import { Link, useSearchParams } from 'react-router-dom';
import { useLeaderboard, useLeaderboardStream, useReward, useSession } from '../api';
import { LoadError } from '../components/LoadError';
import { Pager } from '../components/Pager';
import { Spinner } from '../components/Spinner';
import { T } from '../texts';
import styles from './Leaderboard.module.css';

/** The page a rank is on (ranks shared by ties start where their group does). */
export const pageOfRank = (rank: number, pageSize = REWARDS_PAGE_SIZE): number =>
  Math.max(1, Math.ceil(rank / pageSize));

/**
 * /leaderboard: players ranked by points, then wins, then name, a page at a time. The
 * signed-in player's own row is highlighted, and when it is on another page their rank is shown
 * above the table all the same. It follows the games as they end (the leaderboard stream).
 */
export function Leaderboard() {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  const user = useSession();
  const live = useLeaderboardStream();
  const board = useLeaderboard(page, live);
  const me = useReward(user?._id);
  const go = (next: number): void => setParams(next > 1 ? { page: String(next) } : {});

  const data = board.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / data.pageSize)) : 1;
  const mine = me.data;
  const mineOnPage = mine !== undefined && (data?.rewards.some((r) => r.playerId === mine.playerId) ?? false);

  return (
    <div className="page">
      <div className={styles.head}>
        <h1>{T.leaderboard}</h1>
        <p className={styles.intro}>{T.leaderboardIntro}</p>
      </div>

      {mine && data && !mineOnPage ? (
        <section className={styles.mine} aria-labelledby="my-rank">
          <h2 id="my-rank" className={styles.mineTitle}>
            {T.yourRank}
          </h2>
          <p className={styles.mineLine}>
            <strong className={styles.mineRank}>#{mine.rank}</strong>
            <span className={styles.mineName}>{mine.playerName}</span>
            <span>{T.pointsValue(mine.assets.points)}</span>
            <span>{T.winsValue(mine.wins)}</span>
          </p>
          <button type="button" className="btn btn-secondary" onClick={() => go(pageOfRank(mine.rank))}>
            {T.showMyPage}
          </button>
        </section>
      ) : null}
      {!user ? (
        <p className={styles.hint}>
          <Link to="/login">{T.loginForRank}</Link>
        </p>
      ) : null}

      {data && data.rewards.length > 0 ? (
        <div className={`card ${styles.board}`}>
          <table className={styles.table}>
            <caption className="visually-hidden">
              {T.leaderboardCaption(Math.min(page, pages), pages)}
            </caption>
            <thead>
              <tr>
                <th scope="col" className={styles.number}>
                  {T.rank}
                </th>
                <th scope="col">{T.player}</th>
                <th scope="col" className={styles.number}>
                  {T.points}
                </th>
                <th scope="col" className={styles.number}>
                  {T.wins}
                </th>
                <th scope="col" className={styles.number}>
                  {T.games}
                </th>
              </tr>
            </thead>
            <tbody>
              {data.rewards.map((reward) => (
                <Row key={reward.playerId} reward={reward} mine={reward.playerId === user?._id} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {data && data.rewards.length === 0 ? <p className={styles.hint}>{T.noPlayers}</p> : null}
      {board.isError && !data ? <LoadError error={board.error} onRetry={() => void board.refetch()} /> : null}
      {!data && board.isPending ? <Spinner /> : null}

      {data ? <Pager page={page} pages={pages} onGo={go} /> : null}
    </div>
  );
}

function Row({ reward, mine }: { reward: RankedReward; mine: boolean }) {
  return (
    <tr className={mine ? styles.mineRow : undefined} aria-current={mine ? 'true' : undefined}>
      <td className={`${styles.number} ${styles.rank}`}>{reward.rank}</td>
      <td className={styles.name}>
        {reward.playerName}
        {mine ? <span className={styles.you}> {T.youMarker}</span> : null}
      </td>
      <td className={styles.number}>{reward.assets.points}</td>
      <td className={styles.number}>{reward.wins}</td>
      <td className={styles.number}>{reward.playedGames}</td>
    </tr>
  );
}
