import { TIME_BASE_MS } from './constants';

/** Converts a Unix time in milliseconds to SPEC seconds (since 2022-11-17), keeping millisecond precision. */
export function toSpecSeconds(epochMs: number): number {
  return Math.round(epochMs - TIME_BASE_MS) / 1000;
}

/** Converts SPEC seconds back to a Unix time in milliseconds. */
export function fromSpecSeconds(specSeconds: number): number {
  return Math.round(specSeconds * 1000) + TIME_BASE_MS;
}
