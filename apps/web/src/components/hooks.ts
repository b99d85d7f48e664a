import { useCallback, useEffect, useState } from 'react';
import { serverNowMs } from '../api';

/** The server's clock in Unix ms, ticking every `intervalMs` (for countdowns). */
export function useServerNow(intervalMs = 250): number {
  const [now, setNow] = useState(serverNowMs);
  useEffect(() => {
    const id = setInterval(() => setNow(serverNowMs()), intervalMs);
    return () => clearInterval(id);
  }, [intervalMs]);
  return now;
}

/** The window's inner height, following resizes. */
export function useWindowHeight(): number {
  const [height, setHeight] = useState(() => window.innerHeight);
  useEffect(() => {
    const onResize = (): void => setHeight(window.innerHeight);
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);
  return height;
}

/** True for `ms` after `trigger` changes to a non-null value (overlays that fade after a while). */
export function useTimedFlag<K>(trigger: K | null, ms: number): K | null {
  const [shown, setShown] = useState<{ key: K; until: 'open' | 'done' } | null>(null);
  useEffect(() => {
    if (trigger === null) return undefined;
    const open = setTimeout(() => setShown({ key: trigger, until: 'open' }), 0);
    const done = setTimeout(() => setShown({ key: trigger, until: 'done' }), ms);
    return () => {
      clearTimeout(open);
      clearTimeout(done);
    };
  }, [trigger, ms]);
  return shown && shown.key === trigger && shown.until === 'open' ? trigger : null;
}

/** Timeouts started from event handlers, all cleared when the component unmounts. */
export function useTimeouts(): (fn: () => void, ms: number) => void {
  const [timers] = useState(() => new Set<ReturnType<typeof setTimeout>>());
  useEffect(
    () => () => {
      for (const id of timers) clearTimeout(id);
      timers.clear();
    },
    [timers],
  );
  return useCallback(
    (fn: () => void, ms: number) => {
      const id = setTimeout(() => {
        timers.delete(id);
        fn();
      }, ms);
      timers.add(id);
    },
    [timers],
  );
}
