import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CreateRoomBody,
  createRoomBodySchema,
  type EditRoomBody,
  editRoomBodySchema,
  type EditRoomResponse,
  editRoomResponseSchema,
  type ListRoomsQuery,
  listRoomsQuerySchema,
  type MessageResponse,
  messageResponseSchema,
  Requests,
  roomGonePushDataSchema,
  roomListSchema,
  roomMovesPushDataSchema,
  type RoomPage,
  roomSummarySchema,
  type RoomView,
  roomViewSchema,
  ROOM_MESSAGES,
  type TokenClaims,
  TOTAL_COUNT_HEADER,
} from '@oasis198/contracts';
import { RpcClient } from '@oasis198/service-kit';
import type { Response } from 'express';
import { AuthGuard, Caller } from '../auth/auth.guard';
import { ApiAnswer, ApiError, ApiEventStream } from '../http/openapi';
import { ApiRateLimited, LimitPerUser } from '../http/rate-limit';
import { ValidBody, ValidQuery } from '../http/schema-body';
import { ClientAddress } from '../users/bearer-token.decorator';
import { type RoomChange, RoomFollower, RoomPushService } from './room-push.service';

const STREAMS_LIMITED = 'This client address already holds PUSH_STREAMS_PER_ADDRESS live streams.';

/** The per-user limit an edit counts on: a leave (players.removePlayer) with deletes, anything else with moves. */
export const editLimitOf = (body: unknown): 'roomLeaves' | 'roomEdits' =>
  (body as { players?: { removePlayer?: unknown } } | null)?.players?.removePlayer !== undefined
    ? 'roomLeaves'
    : 'roomEdits';

/**
 * SPEC §7 room calls, forwarded to the rooms service, and the live push streams. Reading and
 * watching need no login; playing does. Route order matters: /mine and /stream come before /:id.
 */
@ApiTags('rooms')
@ApiError(503, 'The rooms service did not answer in time.')
@Controller('api/rooms')
export class RoomsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly push: RoomPushService,
  ) {}

  @Post()
  @UseGuards(AuthGuard)
  @LimitPerUser('roomCreates', 'Too many rooms created by this user in a minute.')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Create a room; the creator is its first player.' })
  @ApiAnswer(201, roomViewSchema)
  @ApiError(400, 'A field breaks SPEC §5 (its message).')
  @ApiError(401)
  @ApiError(403, "createdBy.id is not the caller's id.")
  @ApiError(409, 'The caller already plays in another room.')
  create(
    @ValidBody(createRoomBodySchema) body: CreateRoomBody,
    @Caller() caller: TokenClaims,
  ): Promise<RoomView> {
    return this.rpc.request<RoomView>(Requests.rooms.create, { caller, body });
  }

  @Post('play-now')
  @HttpCode(200)
  @UseGuards(AuthGuard)
  @LimitPerUser('roomCreates', 'Too many rooms created by this user in a minute.')
  @ApiBearerAuth()
  @ApiOperation({
    summary:
      "Play now: a seat in the oldest open room (no passcode, one player waiting), or a new room of the caller's own; the caller's current room if they have one.",
  })
  @ApiAnswer(200, roomViewSchema)
  @ApiError(401)
  @ApiError(409, 'The caller already plays in another room.')
  playNow(@Caller() caller: TokenClaims): Promise<RoomView> {
    return this.rpc.request<RoomView>(Requests.rooms.playNow, { caller });
  }

  /** SPEC §7: a list. How many rooms match in all travels in X-Total-Count, so the body stays a list. */
  @Get()
  @ApiOperation({ summary: 'Rooms, newest first, 8 a page.' })
  @ApiAnswer(200, roomListSchema, 'One page of rooms (?page=), newest first; a page past the end is empty.', {
    headers: {
      [TOTAL_COUNT_HEADER]: {
        description: 'How many rooms match, in all pages (8 a page).',
        schema: { type: 'integer', minimum: 0 },
      },
    },
  })
  async list(
    @ValidQuery(listRoomsQuerySchema) query: ListRoomsQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RoomView[]> {
    const page = await this.rpc.request<RoomPage>(Requests.rooms.list, {
      page: query.page ?? 1,
      freeSpot: query.freeSpot ?? false,
      ...(query.gameType ? { gameType: query.gameType } : {}),
    });
    res.setHeader(TOTAL_COUNT_HEADER, String(page.total));
    return page.rooms;
  }

  @Get('mine')
  @UseGuards(AuthGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: "The caller's current room." })
  @ApiAnswer(200, roomViewSchema)
  @ApiError(401)
  @ApiError(404, 'The caller is in no room.')
  mine(@Caller() caller: TokenClaims): Promise<RoomView> {
    return this.rpc.request<RoomView>(Requests.rooms.mine, { caller });
  }

  @Get('stream')
  @ApiOperation({
    summary:
      'Server-Sent Events: every room change (event "room", data = the room\'s summary) and deletion ("room-deleted").',
  })
  @ApiEventStream(
    'Every room change (event "room", data = the room\'s summary, id = its version) and deletion ("room-deleted", data = { roomId, version, reason }), until the client goes.',
    { room: roomSummarySchema, 'room-deleted': roomGonePushDataSchema },
    true,
  )
  @ApiRateLimited(STREAMS_LIMITED)
  listStream(@ClientAddress() client: string, @Res() res: Response): void {
    this.push.serve(client, res, (stream) => this.push.watchAll(stream.post));
  }

  @Get(':id/stream')
  @ApiOperation({
    summary:
      'Server-Sent Events for one room: the room now, then every change (event "room-moves" within a game, "room" for a new one; id = version) and "room-deleted".',
  })
  @ApiEventStream(
    'The room now (event "room", data = the room, id = its version), then every change until "room-deleted" or the client goes: ' +
      'within the game the stream last sent, event "room-moves" with data = the room holding only the moves from movesFrom on ' +
      '(the stream sent the earlier ones); otherwise the whole room again (event "room").',
    { room: roomViewSchema, 'room-moves': roomMovesPushDataSchema, 'room-deleted': roomGonePushDataSchema },
    true,
  )
  @ApiError(404)
  @ApiRateLimited(STREAMS_LIMITED)
  async roomStream(
    @Param('id') roomId: string,
    @ClientAddress() client: string,
    @Res() res: Response,
  ): Promise<void> {
    const release = this.push.takePlace(client);
    // Listen first, then read the room, so no change falls between the two.
    const early: RoomChange[] = [];
    let take: (change: RoomChange) => void = (change) => early.push(change);
    const unsubscribe = this.push.watchRoom(roomId, (change) => take(change));
    const done = () => {
      unsubscribe();
      release();
    };
    const read = () => this.rpc.request<RoomView>(Requests.rooms.get, { roomId });
    // A room pushed moments ago (an arena's new rooms) starts from its push, not a read.
    let room = this.push.recentRoom(roomId);
    try {
      room ??= await read();
    } catch (error) {
      done();
      throw error;
    }
    // The client may have gone while the room was on its way: open() then cleans up at once.
    const stream = this.push.open(res, done);
    if (stream.ended()) return;
    const follower = new RoomFollower(stream, room, read);
    take = (change) => follower.take(change);
    for (const change of early) follower.take(change);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One room.' })
  @ApiAnswer(200, roomViewSchema)
  @ApiError(404)
  get(@Param('id') roomId: string): Promise<RoomView> {
    return this.rpc.request<RoomView>(Requests.rooms.get, { roomId });
  }

  @Patch(':id/edit')
  @UseGuards(AuthGuard)
  @LimitPerUser(
    (request) => editLimitOf(request.body),
    'Too many leaves and deletes by this user in a minute, or joins, readies and moves in a second.',
  )
  @ApiBearerAuth()
  @ApiOperation({ summary: 'One intent: join, leave, ready (Play Again) or move. Never a raw whosTurn.' })
  @ApiAnswer(200, editRoomResponseSchema)
  @ApiError(400, 'Not exactly one valid intent, or a refused pick or option.')
  @ApiError(401)
  @ApiError(403, "Wrong passcode ('Oops, try again!'), not a player, or not your seat.")
  @ApiError(404)
  @ApiError(409, 'Room full, not your turn, or the room changed at the same moment.')
  edit(
    @Param('id') roomId: string,
    @ValidBody(editRoomBodySchema) body: EditRoomBody,
    @Caller() caller: TokenClaims,
  ): Promise<EditRoomResponse> {
    return this.rpc.request<EditRoomResponse>(Requests.rooms.edit, { caller, roomId, body });
  }

  @Delete(':id/delete')
  @HttpCode(200)
  @UseGuards(AuthGuard)
  @LimitPerUser('roomLeaves', 'Too many leaves and deletes by this user in a minute.')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Delete a room (its creator or a player); a running game is lost by the caller.' })
  @ApiAnswer(200, messageResponseSchema)
  @ApiError(401)
  @ApiError(403, ROOM_MESSAGES.notCreatorOrPlayer)
  @ApiError(404)
  @ApiError(409, ROOM_MESSAGES.concurrent)
  delete(@Param('id') roomId: string, @Caller() caller: TokenClaims): Promise<MessageResponse> {
    return this.rpc.request<MessageResponse>(Requests.rooms.delete, { caller, roomId });
  }
}
