import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type ArenaPrizeResponse,
  type CreateRewardRequest,
  type DeleteRewardRequest,
  type DeleteRewardResponse,
  type EditRewardRequest,
  type EditRewardResponse,
  type GetRewardRequest,
  type RankedReward,
  Requests,
  type RewardPage,
  type RewardView,
} from '@oasis198/contracts';
import { parseCaller, type Sent } from '@oasis198/service-kit';
import { parsePage } from './dto/requests';
import { ReadLine } from './read-line';
import { RewardsService } from './rewards.service';

/** rewards.* over NATS: a payload in, a service call, its answer out. */
@Controller()
export class RewardsController {
  constructor(
    private readonly rewards: RewardsService,
    private readonly reads: ReadLine,
  ) {}

  @MessagePattern(Requests.rewards.get)
  get(@Payload() request: Sent<GetRewardRequest>): Promise<RankedReward> {
    return this.reads.run(() => this.rewards.get(request?.userId));
  }

  @MessagePattern(Requests.rewards.list)
  list(@Payload() request: unknown): Promise<RewardPage> {
    const { page, pageSize } = parsePage(request);
    return this.reads.run(() => this.rewards.list(page, pageSize));
  }

  @MessagePattern(Requests.rewards.create)
  create(@Payload() request: Sent<CreateRewardRequest>): Promise<RewardView> {
    return this.rewards.create(parseCaller(request), request?.body);
  }

  @MessagePattern(Requests.rewards.edit)
  edit(@Payload() request: Sent<EditRewardRequest>): Promise<EditRewardResponse> {
    return this.rewards.edit(parseCaller(request), request?.id, request?.body);
  }

  @MessagePattern(Requests.rewards.arenaPrize)
  arenaPrize(@Payload() request: unknown): Promise<ArenaPrizeResponse> {
    return this.rewards.arenaPrize(request);
  }

  @MessagePattern(Requests.rewards.delete)
  delete(@Payload() request: Sent<DeleteRewardRequest>): Promise<DeleteRewardResponse> {
    return this.rewards.delete(parseCaller(request), request?.id);
  }
}
