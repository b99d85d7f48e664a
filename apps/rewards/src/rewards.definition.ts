import { QueueGroups } from '@oasis198/contracts';
import type { ServiceDefinition } from '@oasis198/service-kit';
import { AppModule } from './app.module';
import { type RewardsConfig, rewardsEnv } from './config';

/**
 * Reward records and game histories: the leaderboard and history calls over NATS, and the user and
 * game events from JetStream.
 */
export const rewardsDefinition: ServiceDefinition<RewardsConfig> = {
  name: 'rewards',
  configSchema: rewardsEnv,
  module: (config) => AppModule.register(config),
  queue: QueueGroups.rewards,
  // Indexes, streams and durable consumers are in place before the NATS handlers subscribe.
  configure: async (app) => {
    await app.init();
  },
};
