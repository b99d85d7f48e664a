import { Body, Controller, Delete, Get, Param, Patch, Post, Query, Res, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import {
  type DeleteRewardResponse,
  type EditRewardResponse,
  REWARDS_PAGE_SIZE,
  Requests,
  TOTAL_COUNT_HEADER,
  type RewardPage,
  type RewardView,
  type TokenClaims,
} from '@oasis198/contracts';
import { RpcClient } from '@oasis198/service-kit';
import type { Response } from 'express';
import { AuthGuard, Caller } from '../auth/auth.guard';
import { ErrorBodyDto } from '../http/error-body.dto';
import { LimitPerUser } from '../http/rate-limit';
import { MessageDto } from '../users/dto/responses.dto';
import { EditRewardResponseDto, RewardViewDto } from './dto/reward-view.dto';
import { CreateRewardDto, EditRewardDto, ListRewardsQueryDto } from './dto/rewards.dto';

/** The 429 of a reward write (REWARD_WRITES_PER_MINUTE per user). */
const WRITES_LIMITED = 'Too many reward writes by this user in a minute.';

/** SPEC §7 rewards calls, forwarded to the rewards service. Reads are public; writes are the owner's. */
@ApiTags('rewards')
@ApiServiceUnavailableResponse({
  type: ErrorBodyDto,
  description: 'The rewards service did not answer in time.',
})
@Controller('api/rewards')
export class RewardsController {
  constructor(private readonly rpc: RpcClient) {}

  /** SPEC §7: a list. The leaderboard's size travels in X-Total-Count, so the body stays a list. */
  @Get()
  @ApiOkResponse({
    type: [RewardViewDto],
    description: 'The leaderboard: most points first, then by name; one page (?page=, ?pageSize=).',
    headers: {
      [TOTAL_COUNT_HEADER]: {
        description: 'How many reward records there are in all pages.',
        schema: { type: 'integer', minimum: 0 },
      },
    },
  })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description: 'page or pageSize is not a whole number in range.',
  })
  async list(
    @Query() query: ListRewardsQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RewardView[]> {
    const page = await this.rpc.request<RewardPage>(Requests.rewards.list, {
      page: query.page ?? 1,
      pageSize: query.pageSize ?? REWARDS_PAGE_SIZE,
    });
    res.setHeader(TOTAL_COUNT_HEADER, String(page.total));
    return page.rewards;
  }

  @Get(':userId')
  @ApiOkResponse({ type: RewardViewDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  get(@Param('userId') userId: string): Promise<RewardView> {
    return this.rpc.request<RewardView>(Requests.rewards.get, { userId });
  }

  @Post()
  @UseGuards(AuthGuard)
  @LimitPerUser('rewardWrites', WRITES_LIMITED)
  @ApiBearerAuth()
  @ApiCreatedResponse({ type: RewardViewDto, description: "The caller's record (the existing one if any)." })
  @ApiUnauthorizedResponse({ type: ErrorBodyDto })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: "playerId is not the caller's id." })
  create(@Body() body: CreateRewardDto, @Caller() caller: TokenClaims): Promise<RewardView> {
    return this.rpc.request<RewardView>(Requests.rewards.create, { caller, body });
  }

  @Patch(':id/edit')
  @UseGuards(AuthGuard)
  @LimitPerUser('rewardWrites', WRITES_LIMITED)
  @ApiBearerAuth()
  @ApiOkResponse({ type: EditRewardResponseDto })
  @ApiUnauthorizedResponse({ type: ErrorBodyDto })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: "Someone else's reward." })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  edit(
    @Param('id') id: string,
    @Body() body: EditRewardDto,
    @Caller() caller: TokenClaims,
  ): Promise<EditRewardResponse> {
    return this.rpc.request<EditRewardResponse>(Requests.rewards.edit, { caller, id, body });
  }

  @Delete(':id/delete')
  @UseGuards(AuthGuard)
  @LimitPerUser('rewardWrites', WRITES_LIMITED)
  @ApiBearerAuth()
  @ApiOkResponse({ type: MessageDto })
  @ApiUnauthorizedResponse({ type: ErrorBodyDto })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: "Someone else's reward." })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  delete(@Param('id') id: string, @Caller() caller: TokenClaims): Promise<DeleteRewardResponse> {
    return this.rpc.request<DeleteRewardResponse>(Requests.rewards.delete, { caller, id });
  }
}
