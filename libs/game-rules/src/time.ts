import { TIME_BASE_MS } from './constants';

/** Converts a Unix time in milliseconds to SPEC seconds (since 2022-11-17), keeping millisecond precision. */
export function toSpecSeconds(epochMs: number): number {
  return Math.round(epochMs - TIME_BASE_MS) / 1000;
}

/** Converts SPEC seconds back to a Unix time in milliseconds. */
export function fromSpecSeconds(specSeconds: number): number {
  return Math.round(specSeconds * 1000) + TIME_BASE_MS;
}

/**
 * A SPEC time plus some seconds, rounded to the millisecond. Plain floating-point addition can land
 * one ulp off the value a clock reading gives for the same instant (131051.067 + 36 is
 * 131087.06699999998), which would make comparisons at an exact boundary go the wrong way; every
 * time the engine derives is rounded this way, so it compares exactly with toSpecSeconds(nowMs).
 */
export function addSpecSeconds(specSeconds: number, seconds: number): number {
  return Math.round((specSeconds + seconds) * 1000) / 1000;
}
