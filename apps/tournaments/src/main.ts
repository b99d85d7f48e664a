import { runService } from '@oasis198/service-kit';
import { tournamentsDefinition } from './tournaments.definition';

void runService(tournamentsDefinition);
