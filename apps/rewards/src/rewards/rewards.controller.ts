import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type DeleteRewardResponse,
  type EditRewardResponse,
  type RankedReward,
  Requests,
  type RewardPage,
  type RewardView,
} from '@oasis198/contracts';
import { asObject, parseCaller } from '@oasis198/service-kit';
import { parsePage } from './dto/requests';
import { RewardsService } from './rewards.service';

/** rewards.* over NATS: a payload in, a service call, its answer out. */
@Controller()
export class RewardsController {
  constructor(private readonly rewards: RewardsService) {}

  @MessagePattern(Requests.rewards.get)
  get(@Payload() request: unknown): Promise<RankedReward> {
    return this.rewards.get(asObject(request)['userId']);
  }

  @MessagePattern(Requests.rewards.list)
  list(@Payload() request: unknown): Promise<RewardPage> {
    const { page, pageSize } = parsePage(asObject(request));
    return this.rewards.list(page, pageSize);
  }

  @MessagePattern(Requests.rewards.create)
  create(@Payload() request: unknown): Promise<RewardView> {
    const fields = asObject(request);
    return this.rewards.create(parseCaller(fields), fields['body']);
  }

  @MessagePattern(Requests.rewards.edit)
  edit(@Payload() request: unknown): Promise<EditRewardResponse> {
    const fields = asObject(request);
    return this.rewards.edit(parseCaller(fields), fields['id'], fields['body']);
  }

  @MessagePattern(Requests.rewards.delete)
  delete(@Payload() request: unknown): Promise<DeleteRewardResponse> {
    const fields = asObject(request);
    return this.rewards.delete(parseCaller(fields), fields['id']);
  }
}
