import { runService } from '@oasis198/service-kit';
import { authDefinition } from './auth.definition';

void runService(authDefinition);
