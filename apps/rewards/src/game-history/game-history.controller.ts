import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type PlayedGame, type PlayedGameDetail, Requests } from '@oasis198/contracts';
import { asObject } from '@oasis198/service-kit';
import { GameHistoryService } from './game-history.service';

/** rewards.games and rewards.game over NATS: a payload in, a service call, its answer out. */
@Controller()
export class GameHistoryController {
  constructor(private readonly history: GameHistoryService) {}

  @MessagePattern(Requests.rewards.games)
  list(@Payload() request: unknown): Promise<PlayedGame[]> {
    return this.history.list(asObject(request)['userId']);
  }

  @MessagePattern(Requests.rewards.game)
  get(@Payload() request: unknown): Promise<PlayedGameDetail> {
    const fields = asObject(request);
    return this.history.get(fields['userId'], fields['gameId']);
  }
}
