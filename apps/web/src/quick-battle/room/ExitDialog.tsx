import { Dialog } from '../../components/Dialog';
import { T } from '../../texts';

/** SPEC §2: 'Sure you want to leave the room {room name}?' with Cancel and Exit. */
export function ExitDialog({
  roomName,
  onCancel,
  onExit,
  pending,
  error,
}: {
  roomName: string;
  onCancel: () => void;
  onExit: () => void;
  pending: boolean;
  error: string | null;
}) {
  return (
    <Dialog
      title={T.confirmExit(roomName)}
      onClose={onCancel}
      actions={
        <>
          <button type="button" className="btn btn-secondary" onClick={onCancel}>
            {T.cancel}
          </button>
          <button type="button" className="btn btn-warm" onClick={onExit} disabled={pending}>
            {pending ? T.leaving : T.exit}
          </button>
        </>
      }
    >
      {error ? (
        <p role="alert" className="alert">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}
