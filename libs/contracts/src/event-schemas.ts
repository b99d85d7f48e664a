import type { z } from 'zod';
import {
  gameFinishedSchema,
  gameStartedSchema,
  moveMadeSchema,
  roomDeletedSchema,
  userDeletedSchema,
  userNamedSchema,
} from './events';
import { roomSnapshotSchema } from './rooms';
import { EventTypes, type EventType } from './subjects';

/**
 * The data of every event type, as a schema: EventPayloads is inferred from it. Apart from
 * events.ts because room.created and room.updated carry a room (rooms.ts), whose schema uses the
 * shapes of events.ts.
 */
export const eventSchemas = {
  [EventTypes.userRegistered]: userNamedSchema,
  [EventTypes.userRenamed]: userNamedSchema,
  [EventTypes.userDeleted]: userDeletedSchema,
  [EventTypes.roomCreated]: roomSnapshotSchema,
  [EventTypes.roomUpdated]: roomSnapshotSchema,
  [EventTypes.roomDeleted]: roomDeletedSchema,
  [EventTypes.gameStarted]: gameStartedSchema,
  [EventTypes.moveMade]: moveMadeSchema,
  [EventTypes.gameFinished]: gameFinishedSchema,
} as const satisfies Record<EventType, z.ZodType>;
