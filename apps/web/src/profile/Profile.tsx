import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';
import {
  errorMessage,
  isApiError,
  useDeleteUser,
  useEndSession,
  useLogout,
  useReward,
  useSession,
} from '../api';
import { useUi, type AvatarTab } from '../app/ui-state';
import { Dialog, NoticeDialog } from '../components/Dialog';
import { Spinner } from '../components/Spinner';
import { T } from '../texts';
import { EditPanel } from './EditPanel';
import styles from './Profile.module.css';
import { CoinPanel, ProfileCards } from './ProfileCards';

const TABS: { id: AvatarTab; label: string }[] = [
  { id: 'coin', label: T.coinTab },
  { id: 'edit', label: T.editTab },
];

export function Profile() {
  const user = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const { ui, dispatch } = useUi();
  const reward = useReward(user?._id);
  const logout = useLogout();
  const deleteUser = useDeleteUser();
  // Set while logging out or deleting, so the redirect below waits for the farewell message.
  const [leaving, setLeaving] = useState<'logout' | 'delete' | null>(null);
  const [farewell, setFarewell] = useState<string | null>(null);
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const baseId = useId();

  const notFound = isApiError(reward.error) && reward.error.status === 404;
  const endSession = useEndSession();
  useEffect(() => {
    // SPEC §4: a reward 404 logs the user out and resets.
    if (notFound) void endSession();
  }, [notFound, endSession]);

  if (!user && !leaving && !farewell) return <Navigate to="/login" replace />;

  const networkTrouble = isApiError(reward.failureReason) && reward.failureReason.isNetwork;

  const onTabKey = (event: KeyboardEvent<HTMLButtonElement>, index: number): void => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    event.preventDefault();
    const next = (index + (event.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length;
    dispatch({ type: 'avatarTab', tab: (TABS[next] as (typeof TABS)[number]).id });
    tabRefs.current[next]?.focus();
  };

  const doLogout = (): void => {
    setLeaving('logout');
    logout.mutate(undefined, {
      onSuccess: () => {
        dispatch({ type: 'logoutWindow', open: false });
        setFarewell(T.loggedOut);
      },
      onError: () => setLeaving(null),
    });
  };

  const doDelete = (): void => {
    setLeaving('delete');
    deleteUser.mutate(undefined, {
      onSuccess: () => {
        dispatch({ type: 'deleteWindow', open: false });
        setFarewell(T.deleted);
      },
      onError: () => setLeaving(null),
    });
  };

  let body;
  if (reward.data) {
    const panelId = `${baseId}-panel`;
    body = (
      <>
        <ProfileCards reward={reward.data} />
        <div className={`card ${styles.panels}`}>
          <div role="tablist" aria-label={T.profileTabs} className={styles.tabs}>
            {TABS.map((tab, i) => (
              <button
                key={tab.id}
                ref={(el) => {
                  tabRefs.current[i] = el;
                }}
                id={`${baseId}-${tab.id}`}
                type="button"
                role="tab"
                aria-selected={ui.avatarTab === tab.id}
                aria-controls={panelId}
                tabIndex={ui.avatarTab === tab.id ? 0 : -1}
                className={styles.tab}
                onClick={() => dispatch({ type: 'avatarTab', tab: tab.id })}
                onKeyDown={(event) => onTabKey(event, i)}
              >
                {tab.label}
              </button>
            ))}
          </div>
          <div id={panelId} role="tabpanel" aria-labelledby={`${baseId}-${ui.avatarTab}`}>
            {ui.avatarTab === 'coin' ? (
              <CoinPanel reward={reward.data} />
            ) : (
              <EditPanel onDelete={() => dispatch({ type: 'deleteWindow', open: true })} />
            )}
          </div>
        </div>
      </>
    );
  } else if (networkTrouble) {
    body = (
      <div role="alert" className="alert">
        <p className={styles.flush}>{T.networkError}</p>
        <p className={styles.detail}>{T.retrying}</p>
      </div>
    );
  } else if (reward.isError && !notFound) {
    body = (
      <div role="alert" className="alert">
        <p className={styles.flush}>{errorMessage(reward.error)}</p>
        <button type="button" className="btn btn-secondary" onClick={() => void reward.refetch()}>
          {T.retry}
        </button>
      </div>
    );
  } else {
    body = <Spinner />;
  }

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

      {body}

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
        <Dialog
          title={T.confirmLogout}
          onClose={() => dispatch({ type: 'logoutWindow', open: false })}
          actions={
            <>
              <button
                type="button"
                className="btn btn-secondary"
                onClick={() => dispatch({ type: 'logoutWindow', open: false })}
              >
                {T.cancel}
              </button>
              <button type="button" className="btn btn-warm" onClick={doLogout} disabled={logout.isPending}>
                {T.exit}
              </button>
            </>
          }
        >
          {logout.isError ? (
            <p role="alert" className="alert">
              {errorMessage(logout.error)}
            </p>
          ) : null}
        </Dialog>
      ) : null}

      {ui.deleteWindow && user ? (
        <Dialog
          role="alertdialog"
          title={T.confirmDelete}
          onClose={() => dispatch({ type: 'deleteWindow', open: false })}
          actions={
            <>
              <button
                type="button"
                className="btn btn-secondary"
                onClick={() => dispatch({ type: 'deleteWindow', open: false })}
              >
                {T.cancel}
              </button>
              <button
                type="button"
                className="btn btn-danger"
                onClick={doDelete}
                disabled={deleteUser.isPending}
              >
                {T.delete}
              </button>
            </>
          }
        >
          {deleteUser.isError ? (
            <p role="alert" className="alert">
              {errorMessage(deleteUser.error)}
            </p>
          ) : null}
        </Dialog>
      ) : null}

      {farewell ? <NoticeDialog title={farewell} button={T.ok} onDismiss={() => navigate('/')} /> : null}
    </div>
  );
}
