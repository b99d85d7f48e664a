import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type CreateRoomRequest,
  type DeadlineDueRequest,
  type DeadlineDueResponse,
  type DeleteRoomRequest,
  type EditRoomRequest,
  type EditRoomResponse,
  type GetRoomRequest,
  type ListRoomsRequest,
  type MessageResponse,
  type MyRoomRequest,
  type OpenArenaRoomResponse,
  type OpenArenaRoomsResponse,
  type PlayNowRequest,
  Requests,
  type RoomPage,
  type RoomView,
} from '@oasis198/contracts';
import { ReadLine } from './read-line';
import { RoomsService } from './rooms.service';

/** The rooms.* subjects: NATS in, the service, the answer out. */
@Controller()
export class RoomsController {
  constructor(
    private readonly rooms: RoomsService,
    private readonly reads: ReadLine,
  ) {}

  @MessagePattern(Requests.rooms.create)
  create(@Payload() request: CreateRoomRequest): Promise<RoomView> {
    return this.rooms.create(request.caller, request.body);
  }

  @MessagePattern(Requests.rooms.list)
  list(@Payload() request: ListRoomsRequest): Promise<RoomPage> {
    return this.reads.run(() => this.rooms.list(request ?? {}));
  }

  @MessagePattern(Requests.rooms.get)
  get(@Payload() request: GetRoomRequest): Promise<RoomView> {
    return this.reads.run(() => this.rooms.get(request?.roomId));
  }

  @MessagePattern(Requests.rooms.mine)
  mine(@Payload() request: MyRoomRequest): Promise<RoomView> {
    return this.rooms.mine(request?.caller);
  }

  @MessagePattern(Requests.rooms.playNow)
  playNow(@Payload() request: PlayNowRequest): Promise<RoomView> {
    return this.rooms.playNow(request?.caller);
  }

  @MessagePattern(Requests.rooms.edit)
  edit(@Payload() request: EditRoomRequest): Promise<EditRoomResponse> {
    return this.rooms.edit(request.caller, request.roomId, request.body);
  }

  @MessagePattern(Requests.rooms.delete)
  delete(@Payload() request: DeleteRoomRequest): Promise<MessageResponse> {
    return this.rooms.delete(request.caller, request.roomId);
  }

  @MessagePattern(Requests.rooms.openArena)
  openArena(@Payload() request: unknown): Promise<OpenArenaRoomResponse | OpenArenaRoomsResponse> {
    return this.rooms.openArena(request);
  }

  @MessagePattern(Requests.rooms.deadline)
  deadline(@Payload() request: DeadlineDueRequest): Promise<DeadlineDueResponse> {
    return this.rooms.deadline(request);
  }
}
