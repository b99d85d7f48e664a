import {
  REQUEST_ID_HEADER,
  type EventEnvelope,
  type EventPayloads,
  type EventType,
} from '@oasis198/contracts';
import { headers as natsHeaders, JSONCodec, type JetStreamClient, type PubAck } from 'nats';
import { currentRequestId } from '../request-context';

export const codec = JSONCodec<unknown>();
const textEncoder = new TextEncoder();

/** Publishes an event with its id as the Nats-Msg-Id (a re-publish of the same id is stored once) and its request id as a header. */
export function publishEvent<T extends EventType>(
  js: JetStreamClient,
  event: EventEnvelope<T>,
): Promise<PubAck> {
  const h = natsHeaders();
  const requestId = event.requestId ?? currentRequestId();
  if (requestId) h.set(REQUEST_ID_HEADER, requestId);
  return js.publish(event.type, codec.encode(event), { msgID: event.id, headers: h });
}

/** Text and its headers as a core NATS message (room pushes: the receiver passes the body on as it is). */
export function textMessage(body: string, headers: Record<string, string>) {
  const h = natsHeaders();
  for (const [name, value] of Object.entries(headers)) h.set(name, value);
  return { data: textEncoder.encode(body), headers: h };
}

/** Builds an event envelope for the outbox or a direct publish. */
export function makeEvent<T extends EventType>(
  type: T,
  id: string,
  data: EventPayloads[T],
  at = new Date(),
): EventEnvelope<T> {
  const requestId = currentRequestId();
  return { id, type, occurredAt: at.toISOString(), ...(requestId ? { requestId } : {}), data };
}
