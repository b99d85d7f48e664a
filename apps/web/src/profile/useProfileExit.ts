import { useState } from 'react';
import { useDeleteUser, useLogout } from '../api';
import { useUi } from '../app/ui-state';
import { T } from '../texts';

/**
 * Logging out and deleting the account (SPEC §4): each confirmed in its dialog, then a farewell
 * message. `leaving` is set while either runs, so the page does not redirect to /login before the
 * farewell has been shown.
 */
export function useProfileExit() {
  const { dispatch } = useUi();
  const logout = useLogout();
  const deleteUser = useDeleteUser();
  const [leaving, setLeaving] = useState<'logout' | 'delete' | null>(null);
  const [farewell, setFarewell] = useState<string | null>(null);

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

  return { logout, deleteUser, doLogout, doDelete, leaving, farewell };
}
