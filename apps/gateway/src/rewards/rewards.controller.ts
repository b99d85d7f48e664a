import { Controller, Delete, Get, Param, Patch, Post, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CreateRewardBody,
  createRewardBodySchema,
  type DeleteRewardResponse,
  type EditRewardBody,
  editRewardBodySchema,
  type EditRewardResponse,
  editRewardResponseSchema,
  GAME_HISTORY_SIZE,
  gameHistorySchema,
  LEADERBOARD_PUSH_EVENT,
  leaderboardPushDataSchema,
  leaderboardSchema,
  messageResponseSchema,
  type PlayedGame,
  type PlayedGameDetail,
  playedGameDetailSchema,
  type ListRewardsQuery,
  listRewardsQuerySchema,
  type RankedReward,
  rankedRewardSchema,
  REWARDS_PAGE_SIZE,
  Requests,
  TOTAL_COUNT_HEADER,
  type RewardPage,
  type RewardView,
  rewardViewSchema,
  type TokenClaims,
} from '@oasis198/contracts';
import { RpcClient } from '@oasis198/service-kit';
import type { Response } from 'express';
import { AuthGuard, Caller } from '../auth/auth.guard';
import { ApiAnswer, ApiError, ApiEventStream } from '../http/openapi';
import { ApiRateLimited, LimitPerUser } from '../http/rate-limit';
import { ValidBody, ValidQuery } from '../http/schema-body';
import { RoomPushService } from '../rooms/room-push.service';
import { ClientAddress } from '../users/bearer-token.decorator';
import { LEADERBOARD_FRAME, LeaderboardPushService } from './leaderboard-push.service';

/** The 429 of a reward write (REWARD_WRITES_PER_MINUTE per user). */
const WRITES_LIMITED = 'Too many reward writes by this user in a minute.';

const STREAMS_LIMITED = 'This client address already holds PUSH_STREAMS_PER_ADDRESS live streams.';

/**
 * SPEC §7 rewards calls, forwarded to the rewards service, the game histories, and the
 * leaderboard's live stream. Reads are public; writes are the owner's.
 */
@ApiTags('rewards')
@ApiError(503, 'The rewards service did not answer in time.')
@Controller('api/rewards')
export class RewardsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly push: RoomPushService,
    private readonly leaderboard: LeaderboardPushService,
  ) {}

  /** SPEC §7: a list. The leaderboard's size travels in X-Total-Count, so the body stays a list. */
  @Get()
  @ApiAnswer(
    200,
    leaderboardSchema,
    'The leaderboard: most points first, then most wins, then by name, each with its rank; one page (?page=, ?pageSize=).',
    {
      headers: {
        [TOTAL_COUNT_HEADER]: {
          description: 'How many reward records there are in all pages.',
          schema: { type: 'integer', minimum: 0 },
        },
      },
    },
  )
  @ApiError(400, 'page or pageSize is not a whole number in range, or another parameter is sent.')
  async list(
    @ValidQuery(listRewardsQuerySchema) query: ListRewardsQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RankedReward[]> {
    const page = await this.rpc.request<RewardPage>(Requests.rewards.list, {
      page: query.page ?? 1,
      pageSize: query.pageSize ?? REWARDS_PAGE_SIZE,
    });
    res.setHeader(TOTAL_COUNT_HEADER, String(page.total));
    return page.rewards;
  }

  /** Before `:userId`, which would take "stream" for an id. */
  @Get('stream')
  @ApiOperation({
    summary:
      'Server-Sent Events: event "leaderboard" (data {}) after games were paid, at most once a second; refetch the page and ranks shown.',
  })
  @ApiEventStream('Event "leaderboard" (data {}) after games were paid, until the client goes.', {
    [LEADERBOARD_PUSH_EVENT]: leaderboardPushDataSchema,
  })
  @ApiRateLimited(STREAMS_LIMITED)
  stream(@ClientAddress() client: string, @Res() res: Response): void {
    this.push.serve(client, res, (stream) => this.leaderboard.watch(() => stream.write(LEADERBOARD_FRAME)));
  }

  @Get(':userId')
  @ApiOperation({ summary: 'A player’s reward record with their rank on the leaderboard.' })
  @ApiAnswer(200, rankedRewardSchema)
  @ApiError(404)
  get(@Param('userId') userId: string): Promise<RankedReward> {
    return this.rpc.request<RankedReward>(Requests.rewards.get, { userId });
  }

  /** Public like the record itself: every game was watchable live, and fair play is for anyone to check. */
  @Get(':userId/games')
  @ApiOperation({ summary: `A player’s last ${GAME_HISTORY_SIZE} finished games, newest first.` })
  @ApiAnswer(200, gameHistorySchema)
  @ApiError(404, 'No reward record for this id.')
  games(@Param('userId') userId: string): Promise<PlayedGame[]> {
    return this.rpc.request<PlayedGame[]>(Requests.rewards.games, { userId });
  }

  @Get(':userId/games/:gameId')
  @ApiOperation({
    summary: 'One game of a player’s history with every move, to replay it and check the AI numbers.',
  })
  @ApiAnswer(200, playedGameDetailSchema)
  @ApiError(404, 'No such player, or no such game in their history.')
  game(@Param('userId') userId: string, @Param('gameId') gameId: string): Promise<PlayedGameDetail> {
    return this.rpc.request<PlayedGameDetail>(Requests.rewards.game, { userId, gameId });
  }

  @Post()
  @UseGuards(AuthGuard)
  @LimitPerUser('rewardWrites', WRITES_LIMITED)
  @ApiBearerAuth()
  @ApiAnswer(201, rewardViewSchema, "The caller's record (the existing one if any).")
  @ApiError(401)
  @ApiError(403, "playerId is not the caller's id, or playerName not the caller's username.")
  create(
    @ValidBody(createRewardBodySchema) body: CreateRewardBody,
    @Caller() caller: TokenClaims,
  ): Promise<RewardView> {
    return this.rpc.request<RewardView>(Requests.rewards.create, { caller, body });
  }

  @Patch(':id/edit')
  @UseGuards(AuthGuard)
  @LimitPerUser('rewardWrites', WRITES_LIMITED)
  @ApiBearerAuth()
  @ApiAnswer(200, editRewardResponseSchema)
  @ApiError(401)
  @ApiError(403, "Someone else's reward, or a playerName that is not the caller's username.")
  @ApiError(404)
  edit(
    @Param('id') id: string,
    @ValidBody(editRewardBodySchema) body: EditRewardBody,
    @Caller() caller: TokenClaims,
  ): Promise<EditRewardResponse> {
    return this.rpc.request<EditRewardResponse>(Requests.rewards.edit, { caller, id, body });
  }

  @Delete(':id/delete')
  @UseGuards(AuthGuard)
  @LimitPerUser('rewardWrites', WRITES_LIMITED)
  @ApiBearerAuth()
  @ApiAnswer(200, messageResponseSchema)
  @ApiError(401)
  @ApiError(403, "Someone else's reward.")
  @ApiError(404)
  delete(@Param('id') id: string, @Caller() caller: TokenClaims): Promise<DeleteRewardResponse> {
    return this.rpc.request<DeleteRewardResponse>(Requests.rewards.delete, { caller, id });
  }
}
