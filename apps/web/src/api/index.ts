/** The app's one door to the network: HTTP calls, their TanStack Query hooks and the push streams. */
export * from './client';
export * from './endpoints';
export * from './hooks';
export * from './push';
export { isReauthCancelled, reauthenticate, useReauthRequest, type ReauthRequest } from './reauth';
export * from './rewards';
export { keys, acceptRoom, wasDeleted } from './cache';
export { serverNowMs } from './clock';
export { getSession, setSession, useSession, visitorId } from './session';
