import { runService } from '@oasis198/service-kit';
import { gameTimerDefinition } from './game-timer.definition';

void runService(gameTimerDefinition);
