import { Controller, Get, HttpCode, Param, Post, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import {
  AppError,
  ARENA_EVENTS,
  ARENA_MESSAGES,
  ARENA_PUSH_EVENT,
  arenaPushSchema,
  type ArenaRoomResponse,
  type ArenaStreamQuery,
  arenaStreamQuerySchema,
  arenaRoomResponseSchema,
  type EventArenaResponse,
  eventArenaResponseSchema,
  isArenaEvent,
  Requests,
  type TokenClaims,
} from '@oasis198/contracts';
import { RpcClient } from '@oasis198/service-kit';
import type { Response } from 'express';
import { AuthGuard, Caller } from '../auth/auth.guard';
import { ApiAnswer, ApiError, ApiEventStream } from '../http/openapi';
import { ApiRateLimited, LimitPerUser } from '../http/rate-limit';
import { RoomPushService } from '../rooms/room-push.service';
import { ClientAddress } from '../users/bearer-token.decorator';
import { ValidQuery } from '../http/schema-body';
import { ArenaPushService } from './arena-push.service';

const JOINS_LIMITED = 'Too many arena joins and leaves by this user in a second.';
const STREAMS_LIMITED = 'This client address already holds PUSH_STREAMS_PER_ADDRESS live streams.';

/** The events that run arenas: the document lists them, so clients and fuzzers name real ones. */
const EVENT_PARAM = { name: 'eventId', enum: [...ARENA_EVENTS] };

/** Refuses an unknown event before any service is asked (its id names a push subject). */
function eventOf(eventId: string): string {
  if (!isArenaEvent(eventId)) throw new AppError('NOT_FOUND', ARENA_MESSAGES.unknownEvent);
  return eventId;
}

/** Event cup arenas (DECISIONS "Event cup arenas"), forwarded to the tournaments service. */
@ApiTags('tournaments')
@ApiError(503, 'The tournaments service did not answer in time.')
@Controller('api/tournaments')
export class TournamentsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly push: RoomPushService,
    private readonly arenas: ArenaPushService,
  ) {}

  @Get('events/:eventId')
  @ApiParam(EVENT_PARAM)
  @ApiOperation({
    summary: "An event's running or next arena with its standings, and the last one's final standings.",
  })
  @ApiAnswer(200, eventArenaResponseSchema)
  @ApiError(404, 'No such event.')
  event(@Param('eventId') eventId: string): Promise<EventArenaResponse> {
    return this.rpc.request(Requests.tournaments.event, { eventId: eventOf(eventId) });
  }

  @Get('events/:eventId/me')
  @ApiParam(EVENT_PARAM)
  @UseGuards(AuthGuard)
  @ApiOperation({ summary: 'The same, with whether the caller has joined and their arena room.' })
  @ApiAnswer(200, eventArenaResponseSchema)
  @ApiError(401)
  @ApiError(404, 'No such event.')
  mine(@Param('eventId') eventId: string, @Caller() caller: TokenClaims): Promise<EventArenaResponse> {
    return this.rpc.request(Requests.tournaments.event, { eventId: eventOf(eventId), caller });
  }

  @Post('events/:eventId/join')
  @ApiParam(EVENT_PARAM)
  @HttpCode(200)
  @UseGuards(AuthGuard)
  @LimitPerUser('roomEdits', JOINS_LIMITED)
  @ApiOperation({
    summary: "Join the event's running or next arena: paired as soon as another player is free.",
  })
  @ApiAnswer(200, eventArenaResponseSchema)
  @ApiError(401)
  @ApiError(404, 'No such event, or it runs no arenas.')
  join(@Param('eventId') eventId: string, @Caller() caller: TokenClaims): Promise<EventArenaResponse> {
    return this.rpc.request(Requests.tournaments.join, { eventId: eventOf(eventId), caller });
  }

  @Post('events/:eventId/leave')
  @ApiParam(EVENT_PARAM)
  @HttpCode(200)
  @UseGuards(AuthGuard)
  @LimitPerUser('roomEdits', JOINS_LIMITED)
  @ApiOperation({
    summary: 'Leave the arena: not paired again until the next Join; a game being played still counts.',
  })
  @ApiAnswer(200, eventArenaResponseSchema)
  @ApiError(401)
  @ApiError(404, 'No such event.')
  @ApiError(409, 'The caller has not joined this arena.')
  leave(@Param('eventId') eventId: string, @Caller() caller: TokenClaims): Promise<EventArenaResponse> {
    return this.rpc.request(Requests.tournaments.leave, { eventId: eventOf(eventId), caller });
  }

  @Get('events/:eventId/stream')
  @ApiParam(EVENT_PARAM)
  @ApiOperation({
    summary:
      'Server-Sent Events: event "arena" when the arena changed, at most once a second, with the event as anyone sees it; `mine` when the named player\'s own entry changed (refetch .../me).',
  })
  @ApiEventStream('Event "arena" when the arena changed, until the client goes.', {
    [ARENA_PUSH_EVENT]: arenaPushSchema,
  })
  @ApiError(404, 'No such event.')
  @ApiRateLimited(STREAMS_LIMITED)
  stream(
    @Param('eventId') eventId: string,
    @ValidQuery(arenaStreamQuerySchema) query: ArenaStreamQuery,
    @ClientAddress() client: string,
    @Res() res: Response,
  ): void {
    const id = eventOf(eventId);
    this.push.serve(client, res, (stream) =>
      this.arenas.watch(id, query.player, (frame) => stream.write(frame)),
    );
  }

  @Get('rooms/:roomId')
  @ApiOperation({ summary: "An arena room's arena: its name, end, and each player's score and rank." })
  @ApiAnswer(200, arenaRoomResponseSchema)
  @ApiError(404, 'Not an arena room.')
  room(@Param('roomId') roomId: string): Promise<ArenaRoomResponse> {
    return this.rpc.request(Requests.tournaments.room, { roomId });
  }
}
