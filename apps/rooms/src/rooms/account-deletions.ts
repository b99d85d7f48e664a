import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Consumers, parseEvent, userDeletedSchema } from '@oasis198/contracts';
import { JetStreamService } from '@oasis198/service-kit';
import { RoomStreams } from './room-streams';
import { RoomsService } from './rooms.service';

/** user.deleted from USERS: an account deleted while it plays leaves its room (RoomsService.onUserDeleted). */
@Injectable()
export class AccountDeletions implements OnModuleInit {
  constructor(
    private readonly streams: RoomStreams,
    private readonly jetstream: JetStreamService,
    private readonly rooms: RoomsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.streams.ready();
    await this.jetstream.consume(Consumers.roomsUsers, (event) =>
      this.rooms.onUserDeleted(parseEvent(userDeletedSchema, event.data, 'user.deleted').userId),
    );
  }
}
