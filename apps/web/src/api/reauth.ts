import { useSyncExternalStore } from 'react';
import { isReauthRequired } from './client';
import { api } from './endpoints';
import { getSession, setSession, subscribeSession } from './session';

/** The user closed the password dialog: the change was not made, and nothing else happens. */
export class ReauthCancelled extends Error {
  constructor() {
    super('Re-authentication cancelled');
    this.name = 'ReauthCancelled';
  }
}

export function isReauthCancelled(error: unknown): error is ReauthCancelled {
  return error instanceof ReauthCancelled;
}

/** The password dialog's request: answered with true after a fresh login, false on Cancel. */
export interface ReauthRequest {
  id: number;
  /** The e-mail to log in with; null when this session never saw it, so the dialog asks for it too. */
  email: string | null;
  answer: (loggedIn: boolean) => void;
}

type Listener = () => void;
const listeners = new Set<Listener>();
let pending: ReauthRequest | null = null;
let asking: Promise<boolean> | null = null;
let asked = 0;

function emit(): void {
  for (const listener of listeners) listener();
}

/**
 * Asks the dialog once at a time: changes refused together wait for the same answer. A logout or
 * another user's login meanwhile (in another tab too) answers Cancel.
 */
function ask(): Promise<boolean> {
  asking ??= new Promise<boolean>((resolve) => {
    const askedFor = getSession()?._id;
    const stopWatching = subscribeSession(() => {
      if (getSession()?._id !== askedFor) request.answer(false);
    });
    const request: ReauthRequest = {
      id: ++asked,
      email: getSession()?.email ?? null,
      answer: (loggedIn) => {
        if (pending !== request) return;
        stopWatching();
        pending = null;
        asking = null;
        emit();
        resolve(loggedIn);
      },
    };
    pending = request;
    emit();
  });
  return asking;
}

/** The request the password dialog shows, or null while none is open. */
export function useReauthRequest(): ReauthRequest | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => pending,
    () => pending,
  );
}

/**
 * Logs the same user in again and keeps the fresh token as a login does. An answer for another
 * account (an e-mail typed in the dialog) is refused, so the repeated change cannot land on it.
 */
export async function reauthenticate(email: string, password: string): Promise<void> {
  const before = getSession();
  const user = await api.login({ email, password });
  if (!before || user._id !== before._id) throw new Error('This is not the account you are logged in to.');
  setSession({ _id: user._id, name: user.name, token: user.token, email });
}

/**
 * Runs a change that may need a recent login (e-mail, password, deletion): on `reauth_required`
 * the password dialog asks, and after a fresh login the change is made once more. Cancel ends it
 * with ReauthCancelled.
 */
export async function withReauth<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (!isReauthRequired(error) || getSession() === null) throw error;
    if (!(await ask())) throw new ReauthCancelled();
    return change();
  }
}
