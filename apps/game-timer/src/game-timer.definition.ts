import type { ServiceDefinition } from '@oasis198/service-kit';
import { AppModule } from './app.module';
import { type GameTimerConfig, gameTimerEnv } from './config';

/**
 * The game timer: owns every deadline of DECISIONS.md "Time". It learns rooms from their events
 * on JetStream and asks the rooms service to apply a deadline when it falls due. It answers no
 * requests itself, so it has no queue group (docs/adr/0008-game-timer-on-message-schedules.md).
 */
export const gameTimerDefinition: ServiceDefinition<GameTimerConfig> = {
  name: 'game-timer',
  configSchema: gameTimerEnv,
  module: (config) => AppModule.register(config),
  configure: async (app) => {
    await app.init();
  },
};
