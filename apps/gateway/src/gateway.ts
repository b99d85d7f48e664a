import type { ServiceDefinition } from '@oasis198/service-kit';
import { AppModule } from './app.module';
import { type GatewayConfig, gatewayEnv } from './config';
import { configureHttp, handleEdgeErrors } from './http/setup';

/** The gateway as a service definition: HTTP only (it calls services, it serves no NATS subjects). */
export const gatewayDefinition: ServiceDefinition<GatewayConfig> = {
  name: 'gateway',
  configSchema: gatewayEnv,
  module: (config) => AppModule.register(config),
  configure: async (app, config) => {
    configureHttp(app, config);
    await app.init();
    handleEdgeErrors(app);
  },
};
