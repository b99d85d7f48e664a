import { Module } from '@nestjs/common';
import { ArenaController } from './arena.controller';
import { ArenaRepository } from './arena.repository';
import { ArenaRunner } from './arena.runner';
import { ArenaService } from './arena.service';
import { GamesConsumer } from './games.consumer';

@Module({
  controllers: [ArenaController],
  providers: [ArenaRepository, ArenaService, ArenaRunner, GamesConsumer],
})
export class ArenaModule {}
