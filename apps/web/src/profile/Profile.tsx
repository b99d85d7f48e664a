import { Link, Navigate, useLocation, useNavigate } from 'react-router-dom';
import { useSession } from '../api';
import { useUi } from '../app/ui-state';
import { ConfirmDialog, NoticeDialog } from '../components/Dialog';
import { LoadError } from '../components/LoadError';
import { Spinner } from '../components/Spinner';
import { T } from '../texts';
import { MyGames } from './MyGames';
import styles from './Profile.module.css';
import { ProfileCards } from './ProfileCards';
import { ProfileTabs } from './ProfileTabs';
import { useProfileExit } from './useProfileExit';
import { useProfileReward } from './useProfileReward';

/** /profile (SPEC §2, §4): the cards, the Coin and Edit panels, My games, log out and delete. */
export function Profile() {
  const user = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const { ui, dispatch } = useUi();
  const exit = useProfileExit();

  if (!user && !exit.leaving && !exit.farewell) return <Navigate to="/login" replace />;

  return (
    <div className="page">
      <div className={styles.top}>
        <h1>
          {T.profile}
          {user ? <span className={styles.hello}> · {user.name}</span> : null}
        </h1>
        <button
          type="button"
          className="icon-btn"
          aria-label={T.closeProfile}
          onClick={() => (location.key === 'default' ? navigate('/') : navigate(-1))}
        >
          <span aria-hidden="true">✕</span>
        </button>
      </div>

      <ProfileBody userId={user?._id} />

      {user ? (
        <div className={styles.logoutRow}>
          <button
            type="button"
            className="btn btn-secondary"
            onClick={() => dispatch({ type: 'logoutWindow', open: true })}
          >
            {T.logOut}
          </button>
        </div>
      ) : null}

      {ui.logoutWindow && user ? (
        // SPEC §2: 'Are you sure you want to log out?' with Cancel and Exit.
        <ConfirmDialog
          title={T.confirmLogout}
          confirm={T.exit}
          tone="warm"
          onCancel={() => dispatch({ type: 'logoutWindow', open: false })}
          {...exit.logout}
        />
      ) : null}
      {ui.deleteWindow && user ? (
        // SPEC §2: 'Confirm to delete account?' with Cancel and Delete.
        <ConfirmDialog
          role="alertdialog"
          title={T.confirmDelete}
          confirm={T.delete}
          tone="danger"
          onCancel={() => dispatch({ type: 'deleteWindow', open: false })}
          {...exit.deleteUser}
        />
      ) : null}
      {exit.farewell ? (
        <NoticeDialog title={exit.farewell} button={T.ok} onDismiss={() => navigate('/')} />
      ) : null}
    </div>
  );
}

/** The record's cards and panels and My games, or why they are not there yet (SPEC §4). */
function ProfileBody({ userId }: { userId: string | undefined }) {
  const { reward, notFound, networkTrouble } = useProfileReward(userId);
  if (reward.data) {
    return (
      <>
        <ProfileCards reward={reward.data} />
        <p className={styles.place}>
          {T.yourPlace(reward.data.rank)} <Link to="/leaderboard">{T.seeLeaderboard}</Link>
        </p>
        <ProfileTabs reward={reward.data} />
        {userId ? <MyGames userId={userId} /> : null}
      </>
    );
  }
  if (networkTrouble) {
    return (
      <div role="alert" className="alert">
        <p className={styles.flush}>{T.networkError}</p>
        <p className={styles.detail}>{T.retrying}</p>
      </div>
    );
  }
  if (reward.isError && !notFound) {
    return <LoadError error={reward.error} onRetry={() => void reward.refetch()} />;
  }
  return <Spinner />;
}
