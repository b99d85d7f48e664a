import { Body, Controller, Delete, Get, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import {
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
  type RewardPage,
  type RewardView,
  type TokenClaims,
} from '@oasis198/contracts';
import { RpcClient } from '@oasis198/service-kit';
import { AuthGuard, Caller } from '../auth/auth.guard';
import { ErrorBodyDto } from '../http/error-body.dto';
import { MessageDto } from '../users/dto/responses.dto';
import { EditRewardResponseDto, RewardPageDto, RewardViewDto } from './dto/reward-view.dto';
import { CreateRewardDto, EditRewardDto, ListRewardsQueryDto } from './dto/rewards.dto';

/** SPEC §7 rewards calls, forwarded to the rewards service. Reads are public; writes are the owner's. */
@ApiTags('rewards')
@ApiServiceUnavailableResponse({
  type: ErrorBodyDto,
  description: 'The rewards service did not answer in time.',
})
@Controller('api/rewards')
export class RewardsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiOkResponse({ type: RewardPageDto, description: 'The leaderboard: most points first, paginated.' })
  list(@Query() query: ListRewardsQueryDto): Promise<RewardPage> {
    return this.rpc.request<RewardPage>(Requests.rewards.list, {
      page: query.page ?? 1,
      pageSize: query.pageSize ?? REWARDS_PAGE_SIZE,
    });
  }

  @Get(':userId')
  @ApiOkResponse({ type: RewardViewDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  get(@Param('userId') userId: string): Promise<RewardView> {
    return this.rpc.request<RewardView>(Requests.rewards.get, { userId });
  }

  @Post()
  @UseGuards(AuthGuard)
  @ApiBearerAuth()
  @ApiCreatedResponse({ type: RewardViewDto, description: "The caller's record (the existing one if any)." })
  @ApiUnauthorizedResponse({ type: ErrorBodyDto })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: "playerId is not the caller's id." })
  create(@Body() body: CreateRewardDto, @Caller() caller: TokenClaims): Promise<RewardView> {
    return this.rpc.request<RewardView>(Requests.rewards.create, { caller, body });
  }

  @Patch(':id/edit')
  @UseGuards(AuthGuard)
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
  @ApiBearerAuth()
  @ApiOkResponse({ type: MessageDto })
  @ApiUnauthorizedResponse({ type: ErrorBodyDto })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: "Someone else's reward." })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  delete(@Param('id') id: string, @Caller() caller: TokenClaims): Promise<DeleteRewardResponse> {
    return this.rpc.request<DeleteRewardResponse>(Requests.rewards.delete, { caller, id });
  }
}
