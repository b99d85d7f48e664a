import {
  AppError,
  listRewardsRequestSchema,
  type ListRewardsRequest,
  parseOr,
  parseWith,
  REWARD_MESSAGES,
  rewardIdSchema,
} from '@oasis198/contracts';

/** A player id from a request: anything but an id cannot name a record (404). */
export const parseId = (value: unknown): string =>
  parseOr(rewardIdSchema, value, () => new AppError('NOT_FOUND', REWARD_MESSAGES.notFound));

/** rewards.list: page 1.., page size 1..REWARDS_MAX_PAGE_SIZE; missing values take the defaults. */
export const parsePage = (request: unknown): ListRewardsRequest =>
  parseWith(listRewardsRequestSchema, request);
