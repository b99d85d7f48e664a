import { useEffect } from 'react';
import { isApiError, useEndSession, useReward } from '../api';

/**
 * The signed-in player's reward record (with their rank), and what SPEC §4 asks of its failures:
 * a 404 logs the user out and resets; a network error is retried every 10 s (useReward).
 */
export function useProfileReward(userId: string | undefined) {
  const reward = useReward(userId);
  const notFound = isApiError(reward.error) && reward.error.status === 404;
  const endSession = useEndSession();
  useEffect(() => {
    if (notFound) void endSession();
  }, [notFound, endSession]);
  const networkTrouble = isApiError(reward.failureReason) && reward.failureReason.isNetwork;
  return { reward, notFound, networkTrouble };
}
