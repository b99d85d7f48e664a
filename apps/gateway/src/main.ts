import { runService } from '@oasis198/service-kit';
import { gatewayEnvironment } from './config';
import { gatewayDefinition } from './gateway';

process.env = gatewayEnvironment(process.env);
void runService(gatewayDefinition);
