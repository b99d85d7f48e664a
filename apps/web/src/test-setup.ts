import '@testing-library/jest-dom';
import { notifyManager } from '@tanstack/react-query';
import { cleanup } from '@testing-library/react';
import { resetServerClock } from './api/clock';
import { setSession } from './api/session';

// Query notifications on microtasks, not timers, so tests with fake timers see them at once.
notifyManager.setScheduler(queueMicrotask);

// jsdom does not scroll; React Router's ScrollRestoration calls it.
window.scrollTo = (() => undefined) as typeof window.scrollTo;

// jsdom 26 has the <dialog> element but none of its methods (showModal, close) nor the browser's
// Escape handling. A minimal stand-in for what the app uses, following the HTML spec:
// showModal() opens the dialog and focuses its first focusable element (or the dialog), close()
// closes it and fires `close`, and Escape fires a cancelable `cancel` at the topmost modal dialog,
// closing it unless cancelled. Real browsers run the same Dialog in the e2e scenarios.
if (typeof HTMLDialogElement.prototype.showModal !== 'function') {
  const modal: HTMLDialogElement[] = [];
  const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select, textarea, [tabindex]';
  HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
    if (this.open) return;
    if (!this.isConnected) throw new DOMException('The dialog is not in a document.', 'InvalidStateError');
    this.open = true;
    modal.push(this);
    const target =
      this.querySelector<HTMLElement>('[autofocus]') ?? this.querySelector<HTMLElement>(FOCUSABLE);
    (target ?? this).focus();
  };
  HTMLDialogElement.prototype.close = function close(this: HTMLDialogElement) {
    if (!this.open) return;
    this.open = false;
    if (modal.includes(this)) modal.splice(modal.indexOf(this), 1);
    this.dispatchEvent(new Event('close'));
  };
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || event.defaultPrevented) return;
    const top = modal.filter((d) => d.isConnected && d.open).at(-1);
    if (top?.dispatchEvent(new Event('cancel', { cancelable: true }))) top.close();
  });
}

afterEach(() => {
  // Unmount first, so resetting the session does not re-render a screen outside act().
  cleanup();
  setSession(null);
  window.localStorage.clear();
  resetServerClock();
  delete window.OASIS_CONFIG;
});
