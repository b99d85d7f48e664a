import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { RewardsModule } from '../rewards/rewards.module';
import { GameHistoryConsumer } from './game-history.consumer';
import { GameHistoryController } from './game-history.controller';
import { GameHistoryRepository } from './game-history.repository';
import { PlayerGame, PlayerGameSchema, PlayerHistory, PlayerHistorySchema } from './game-history.schema';
import { GameHistoryService } from './game-history.service';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: PlayerGame.name, schema: PlayerGameSchema },
      { name: PlayerHistory.name, schema: PlayerHistorySchema },
    ]),
    RewardsModule,
  ],
  controllers: [GameHistoryController],
  providers: [GameHistoryRepository, GameHistoryService, GameHistoryConsumer],
  exports: [GameHistoryRepository],
})
export class GameHistoryModule {}
