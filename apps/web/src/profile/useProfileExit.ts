import type { UseMutationResult } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage, isReauthCancelled, useDeleteUser, useLogout } from '../api';
import { useUi } from '../app/ui-state';
import { T } from '../texts';

/**
 * Logging out and deleting the account (SPEC §4): each confirmed in its dialog, then a farewell
 * message. `leaving` is set while either runs, so the page does not redirect to /login before the
 * farewell has been shown. Each action comes as its confirm dialog's props.
 */
export function useProfileExit() {
  const { dispatch } = useUi();
  const [leaving, setLeaving] = useState(false);
  const [farewell, setFarewell] = useState<string | null>(null);

  const exitBy = (
    mutation: UseMutationResult<void, Error, void>,
    window: 'logoutWindow' | 'deleteWindow',
    message: string,
  ) => ({
    onConfirm: (): void => {
      setLeaving(true);
      mutation.mutate(undefined, {
        onSuccess: () => {
          dispatch({ type: window, open: false });
          setFarewell(message);
        },
        onError: () => setLeaving(false),
      });
    },
    pending: mutation.isPending,
    // Cancel in the password dialog leaves the question open, with nothing to report.
    error: mutation.isError && !isReauthCancelled(mutation.error) ? errorMessage(mutation.error) : null,
  });

  return {
    logout: exitBy(useLogout(), 'logoutWindow', T.loggedOut),
    deleteUser: exitBy(useDeleteUser(), 'deleteWindow', T.deleted),
    leaving,
    farewell,
  };
}
