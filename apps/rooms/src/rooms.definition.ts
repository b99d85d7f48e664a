import { QueueGroups } from '@oasis198/contracts';
import type { ServiceDefinition } from '@oasis198/service-kit';
import { AppModule } from './app.module';
import { type RoomsConfig, roomsEnv } from './config';

/** The rooms service: rooms, membership and server-authoritative play, over NATS request/reply. */
export const roomsDefinition: ServiceDefinition<RoomsConfig> = {
  name: 'rooms',
  configSchema: roomsEnv,
  module: (config) => AppModule.register(config),
  queue: QueueGroups.rooms,
  // Initialise (streams, the room log projector) before the NATS handlers subscribe.
  configure: async (app) => {
    await app.init();
  },
};
