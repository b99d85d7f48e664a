import { useEffect, useId, useRef, type ReactNode, type RefObject, type SyntheticEvent } from 'react';
import { createPortal } from 'react-dom';
import { T } from '../texts';
import styles from './Dialog.module.css';

export interface DialogProps {
  title: string;
  /** Hide the title visually (it still names the dialog). */
  hideTitle?: boolean;
  children?: ReactNode;
  /** Escape and a click on the backdrop call it; the owner then stops rendering the dialog. */
  onClose: () => void;
  actions?: ReactNode;
  /** The element to focus first; by default the browser's choice (the first focusable one). */
  initialFocus?: RefObject<HTMLElement | null>;
  variant?: 'centre' | 'drawer-left' | 'drawer-right';
  role?: 'dialog' | 'alertdialog';
  id?: string;
  className?: string;
}

/**
 * A modal dialog: the browser's own <dialog>, opened with showModal(), so the page behind is inert
 * and focus stays inside without a hand-made trap. It is labelled by its title; Escape and a click
 * on the backdrop ask the owner to close it, and focus returns where it was when it goes.
 */
export function Dialog({
  title,
  hideTitle = false,
  children,
  onClose,
  actions,
  initialFocus,
  variant = 'centre',
  role = 'dialog',
  id,
  className,
}: DialogProps) {
  const titleId = useId();
  const bodyId = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  // Where a pointer went down: a click counts as one on the backdrop only if it began there too
  // (a text selection dragged out of the panel is not).
  const pressed = useRef<EventTarget | null>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return undefined;
    const previous = document.activeElement as HTMLElement | null;
    if (!element.open) element.showModal();
    initialFocus?.current?.focus();
    // The owner unmounts the dialog rather than calling close(), which leaves the top layer but
    // does not give focus back: that is done here.
    return () => {
      if (previous && document.contains(previous)) previous.focus();
    };
    // The dialog opens once, when it mounts.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Escape: the browser fires `cancel`. Prevented, the dialog stays open until its owner removes it.
  // A cancel the browser does not let be prevented (Escape again without a user action between)
  // closes it anyway, and then `close` tells the owner, so onClose runs once either way.
  const onCancel = (event: SyntheticEvent<HTMLDialogElement>): void => {
    if (!event.nativeEvent.cancelable) return;
    event.preventDefault();
    onClose();
  };

  return createPortal(
    // A click on the ::backdrop is a click on the <dialog> itself, whose panel fills it; Escape is
    // the keyboard's way out, handled by the browser.
    // eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-noninteractive-element-interactions
    <dialog
      ref={dialog}
      id={id}
      role={role === 'alertdialog' ? 'alertdialog' : undefined}
      aria-labelledby={titleId}
      aria-describedby={children ? bodyId : undefined}
      className={`${styles.dialog} ${styles[variant]}`}
      onCancel={onCancel}
      onClose={onClose}
      onPointerDown={(event) => {
        pressed.current = event.target;
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget && pressed.current === event.currentTarget) onClose();
      }}
    >
      <div className={`${styles.panel} ${className ?? ''}`}>
        <h2 id={titleId} className={hideTitle ? 'visually-hidden' : styles.title}>
          {title}
        </h2>
        {children ? (
          <div id={bodyId} className={styles.body}>
            {children}
          </div>
        ) : null}
        {actions ? <div className={styles.actions}>{actions}</div> : null}
      </div>
    </dialog>,
    document.body,
  );
}

/**
 * A message with one button that dismisses it (Ok, Try Again): the button, Escape and the backdrop
 * all call `onDismiss`.
 */
export function NoticeDialog({
  title,
  button,
  onDismiss,
  role,
  children,
}: {
  title: string;
  button: string;
  onDismiss: () => void;
  role?: DialogProps['role'];
  children?: ReactNode;
}) {
  return (
    <Dialog
      title={title}
      role={role}
      onClose={onDismiss}
      actions={
        <button type="button" className="btn" onClick={onDismiss}>
          {button}
        </button>
      }
    >
      {children}
    </Dialog>
  );
}

/**
 * A question with Cancel and a confirm button (log out, delete the account, leave the room):
 * Cancel, Escape and the backdrop call `onCancel`; the confirm button does nothing while the action
 * runs, and a failure shows as an alert.
 */
export function ConfirmDialog({
  title,
  role,
  confirm,
  busy = confirm,
  tone,
  onConfirm,
  onCancel,
  pending,
  error,
}: {
  title: string;
  role?: DialogProps['role'];
  /** The confirm button's label, and what it reads while the action runs. */
  confirm: string;
  busy?: string;
  tone: 'warm' | 'danger';
  onConfirm: () => void;
  onCancel: () => void;
  pending: boolean;
  error: string | null;
}) {
  return (
    <Dialog
      title={title}
      role={role}
      onClose={onCancel}
      actions={
        <>
          <button type="button" className="btn btn-secondary" onClick={onCancel}>
            {T.cancel}
          </button>
          {/* aria-disabled, not disabled, while it runs: the button keeps the focus, which a
              dialog opened meanwhile (the password dialog) gives back to it. */}
          <button
            type="button"
            className={`btn btn-${tone}`}
            onClick={() => {
              if (!pending) onConfirm();
            }}
            aria-disabled={pending || undefined}
          >
            {pending ? busy : confirm}
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
