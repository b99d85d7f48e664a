import { runService } from '@oasis198/service-kit';
import { roomsDefinition } from './rooms.definition';

void runService(roomsDefinition);
