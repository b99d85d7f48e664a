import type { AuthUser } from '@oasis198/contracts';
import { useSyncExternalStore } from 'react';

/** SPEC §3: the logged-in user lives in localStorage under `user`, the visitor id under `userId`. */
export const USER_KEY = 'user';
export const VISITOR_KEY = 'userId';

/**
 * The logged-in user as kept: SPEC's _id, name and token, and the e-mail when the app has seen it
 * (login, registration, an edit), which re-authentication logs in with again.
 */
export type Session = AuthUser & { email?: string };

type Listener = () => void;
const listeners = new Set<Listener>();

function storage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

function isAuthUser(value: unknown): value is AuthUser {
  if (typeof value !== 'object' || value === null) return false;
  const { _id, name, token } = value as Record<string, unknown>;
  return typeof _id === 'string' && typeof name === 'string' && typeof token === 'string';
}

function read(): Session | null {
  const raw = storage()?.getItem(USER_KEY);
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!isAuthUser(parsed)) return null;
    const { email } = parsed as { email?: unknown };
    const user: Session = { _id: parsed._id, name: parsed.name, token: parsed.token };
    return typeof email === 'string' ? { ...user, email } : user;
  } catch {
    return null;
  }
}

let current: Session | null = read();

function emit(): void {
  for (const listener of listeners) listener();
}

/** The logged-in user, or null for a visitor. */
export function getSession(): Session | null {
  return current;
}

/** Stores (or, with null, forgets) the logged-in user. */
export function setSession(user: Session | null): void {
  const store = storage();
  if (user) store?.setItem(USER_KEY, JSON.stringify(user));
  else store?.removeItem(USER_KEY);
  current = user;
  emit();
}

/** Re-reads localStorage: another tab logged in or out. */
export function reloadSession(): void {
  current = read();
  emit();
}

if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (event.key === USER_KEY || event.key === null) reloadSession();
  });
}

/** Calls `listener` whenever the logged-in user changes (here or in another tab). */
export function subscribeSession(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The logged-in user as React state. */
export function useSession(): Session | null {
  return useSyncExternalStore(subscribeSession, getSession, getSession);
}

function randomUuid(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof crypto !== 'undefined' && typeof crypto.getRandomValues === 'function') {
    crypto.getRandomValues(bytes);
  } else {
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  }
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The visitor's id (SPEC §3), created on first need and kept in localStorage under `userId`. */
export function visitorId(): string {
  const store = storage();
  const existing = store?.getItem(VISITOR_KEY);
  if (existing) return existing;
  const id = randomUuid();
  store?.setItem(VISITOR_KEY, id);
  return id;
}
