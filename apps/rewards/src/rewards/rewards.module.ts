import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import {
  DeletedPlayer,
  DeletedPlayerSchema,
  PaidGame,
  PaidGameSchema,
  Reward,
  RewardSchema,
} from './reward.schema';
import { ReadLine } from './read-line';
import { RewardsController } from './rewards.controller';
import { RewardsRepository } from './rewards.repository';
import { RewardsService } from './rewards.service';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: Reward.name, schema: RewardSchema },
      { name: DeletedPlayer.name, schema: DeletedPlayerSchema },
      { name: PaidGame.name, schema: PaidGameSchema },
    ]),
  ],
  controllers: [RewardsController],
  providers: [RewardsRepository, RewardsService, ReadLine],
  exports: [RewardsRepository, ReadLine],
})
export class RewardsModule {}
