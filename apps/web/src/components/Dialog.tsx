import { useEffect, useEffectEvent, useId, useRef, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import styles from './Dialog.module.css';

/** Open dialogs, innermost last: keys go to the innermost one. */
const openDialogs: HTMLElement[] = [];

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export interface DialogProps {
  title: string;
  /** Hide the title visually (it still names the dialog). */
  hideTitle?: boolean;
  children?: ReactNode;
  /** Escape and a click on the backdrop call it. */
  onClose: () => void;
  actions?: ReactNode;
  /** The element to focus first; by default the first focusable one. */
  initialFocus?: RefObject<HTMLElement | null>;
  variant?: 'centre' | 'drawer-left' | 'drawer-right';
  role?: 'dialog' | 'alertdialog';
  id?: string;
  className?: string;
}

/**
 * A modal dialog: role=dialog with aria-modal, labelled by its title, focus moved in and kept
 * inside (Tab wraps), Escape closes, and focus returns where it was when it closes.
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
  const panel = useRef<HTMLDivElement>(null);

  const close = useEffectEvent(onClose);

  useEffect(() => {
    const element = panel.current;
    if (!element) return undefined;
    const previous = document.activeElement as HTMLElement | null;
    openDialogs.push(element);
    const target = initialFocus?.current ?? element.querySelector<HTMLElement>(FOCUSABLE) ?? element;
    target.focus();

    // Listening on the document keeps Escape and the Tab trap working even when the focused
    // element inside the dialog has just been removed.
    const onKeyDown = (event: KeyboardEvent): void => {
      if (openDialogs[openDialogs.length - 1] !== element) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        close();
        return;
      }
      if (event.key !== 'Tab') return;
      const items = Array.from(element.querySelectorAll<HTMLElement>(FOCUSABLE));
      const first = items[0];
      const last = items[items.length - 1];
      const active = document.activeElement;
      if (!first || !last) {
        event.preventDefault();
        element.focus();
      } else if (!element.contains(active)) {
        event.preventDefault();
        (event.shiftKey ? last : first).focus();
      } else if (event.shiftKey && (active === first || active === element)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && active === last) {
        event.preventDefault();
        first.focus();
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      openDialogs.splice(openDialogs.indexOf(element), 1);
      if (previous && document.contains(previous)) previous.focus();
    };
    // Focus moves once, when the dialog opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return createPortal(
    <div className={`${styles.backdrop} ${styles[variant]}`}>
      <button type="button" className={styles.scrim} tabIndex={-1} aria-hidden="true" onClick={onClose} />
      <div
        ref={panel}
        id={id}
        role={role}
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={children ? bodyId : undefined}
        tabIndex={-1}
        className={`${styles.panel} ${className ?? ''}`}
      >
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
    </div>,
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
