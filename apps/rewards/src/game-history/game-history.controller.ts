import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type GameHistoryRequest,
  type PlayedGame,
  type PlayedGameDetail,
  type PlayedGameRequest,
  Requests,
} from '@oasis198/contracts';
import type { Sent } from '@oasis198/service-kit';
import { ReadLine } from '../rewards/read-line';
import { GameHistoryService } from './game-history.service';

/** rewards.games and rewards.game over NATS: a payload in, a service call, its answer out. */
@Controller()
export class GameHistoryController {
  constructor(
    private readonly history: GameHistoryService,
    private readonly reads: ReadLine,
  ) {}

  @MessagePattern(Requests.rewards.games)
  list(@Payload() request: Sent<GameHistoryRequest>): Promise<PlayedGame[]> {
    return this.reads.run(() => this.history.list(request?.userId));
  }

  @MessagePattern(Requests.rewards.game)
  get(@Payload() request: Sent<PlayedGameRequest>): Promise<PlayedGameDetail> {
    return this.reads.run(() => this.history.get(request?.userId, request?.gameId));
  }
}
