import { QueueGroups } from '@oasis198/contracts';
import type { ServiceDefinition } from '@oasis198/service-kit';
import { AppModule } from './app.module';
import { type TournamentsConfig, tournamentsEnv } from './config';

/**
 * Event cup arenas: joins, leaves and standings over NATS; pairings opened as rooms by the rooms
 * service; arena games scored from game.finished; prizes paid through rewards (docs/architecture.md).
 */
export const tournamentsDefinition: ServiceDefinition<TournamentsConfig> = {
  name: 'tournaments',
  configSchema: tournamentsEnv,
  module: (config) => AppModule.register(config),
  queue: QueueGroups.tournaments,
  configure: async (app) => {
    await app.init();
  },
};
