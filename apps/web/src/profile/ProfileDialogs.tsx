import { errorMessage } from '../api';
import { useUi } from '../app/ui-state';
import { Dialog } from '../components/Dialog';
import { T } from '../texts';

interface ConfirmProps {
  onConfirm: () => void;
  pending: boolean;
  error: unknown;
}

/** SPEC §2: 'Are you sure you want to log out?' with Cancel and Exit. */
export function LogoutDialog({ onConfirm, pending, error }: ConfirmProps) {
  const { dispatch } = useUi();
  const close = (): void => dispatch({ type: 'logoutWindow', open: false });
  return (
    <Dialog
      title={T.confirmLogout}
      onClose={close}
      actions={
        <>
          <button type="button" className="btn btn-secondary" onClick={close}>
            {T.cancel}
          </button>
          <button type="button" className="btn btn-warm" onClick={onConfirm} disabled={pending}>
            {T.exit}
          </button>
        </>
      }
    >
      <Failure error={error} />
    </Dialog>
  );
}

/** SPEC §2: 'Confirm to delete account?' with Cancel and Delete. */
export function DeleteDialog({ onConfirm, pending, error }: ConfirmProps) {
  const { dispatch } = useUi();
  const close = (): void => dispatch({ type: 'deleteWindow', open: false });
  return (
    <Dialog
      role="alertdialog"
      title={T.confirmDelete}
      onClose={close}
      actions={
        <>
          <button type="button" className="btn btn-secondary" onClick={close}>
            {T.cancel}
          </button>
          <button type="button" className="btn btn-danger" onClick={onConfirm} disabled={pending}>
            {T.delete}
          </button>
        </>
      }
    >
      <Failure error={error} />
    </Dialog>
  );
}

function Failure({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="alert">
      {errorMessage(error)}
    </p>
  );
}
