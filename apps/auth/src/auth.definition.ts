import { QueueGroups } from '@oasis198/contracts';
import type { ServiceDefinition } from '@oasis198/service-kit';
import { AppModule } from './app.module';
import { type AuthConfig, authEnv } from './config';

/** Accounts and sessions: register, login, edit, logout, delete and token verification over NATS. */
export const authDefinition: ServiceDefinition<AuthConfig> = {
  name: 'auth',
  configSchema: authEnv,
  module: (config) => AppModule.register(config),
  queue: QueueGroups.auth,
  // Start-up work (streams, indexes, the outbox relay) runs before the NATS handlers subscribe.
  configure: async (app) => {
    await app.init();
  },
};
