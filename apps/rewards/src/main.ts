import { runService } from '@oasis198/service-kit';
import { rewardsDefinition } from './rewards.definition';

void runService(rewardsDefinition);
