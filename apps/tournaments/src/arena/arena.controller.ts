import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type ArenaRoomRequest,
  type ArenaRoomResponse,
  type EventArenaRequest,
  type EventArenaResponse,
  type JoinArenaRequest,
  Requests,
  tokenClaimsSchema,
} from '@oasis198/contracts';
import { parseCaller, type Sent } from '@oasis198/service-kit';
import { ArenaService } from './arena.service';

/** tournaments.* over NATS. */
@Controller()
export class ArenaController {
  constructor(private readonly arenas: ArenaService) {}

  @MessagePattern(Requests.tournaments.event)
  event(@Payload() request: Sent<EventArenaRequest>): Promise<EventArenaResponse> {
    const caller = tokenClaimsSchema.safeParse(request?.caller);
    return this.arenas.event(request?.eventId, caller.success ? caller.data : undefined);
  }

  @MessagePattern(Requests.tournaments.join)
  join(@Payload() request: Sent<JoinArenaRequest>): Promise<EventArenaResponse> {
    return this.arenas.join(request?.eventId, parseCaller(request));
  }

  @MessagePattern(Requests.tournaments.leave)
  leave(@Payload() request: Sent<JoinArenaRequest>): Promise<EventArenaResponse> {
    return this.arenas.leave(request?.eventId, parseCaller(request));
  }

  @MessagePattern(Requests.tournaments.room)
  room(@Payload() request: Sent<ArenaRoomRequest>): Promise<ArenaRoomResponse> {
    return this.arenas.room(request?.roomId);
  }
}
