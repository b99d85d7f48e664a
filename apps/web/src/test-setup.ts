import '@testing-library/jest-dom';
import { notifyManager } from '@tanstack/react-query';
import { cleanup } from '@testing-library/react';
import { resetServerClock } from './api/clock';
import { setSession } from './api/session';

// Query notifications on microtasks, not timers, so tests with fake timers see them at once.
notifyManager.setScheduler(queueMicrotask);

// jsdom does not scroll; React Router's ScrollRestoration calls it.
window.scrollTo = (() => undefined) as typeof window.scrollTo;

afterEach(() => {
  // Unmount first, so resetting the session does not re-render a screen outside act().
  cleanup();
  setSession(null);
  window.localStorage.clear();
  resetServerClock();
  delete window.OASIS_CONFIG;
});
