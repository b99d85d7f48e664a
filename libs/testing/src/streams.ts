import { AppError } from '@oasis198/contracts';
import { DiscardPolicy, type NatsConnection, type StreamConfig, type StreamState } from 'nats';
import { uniqueName } from './helpers';

/** JetStream's error code for a publish refused because the stream has no room (discard NEW). */
export const STREAM_FULL_ERR_CODE = 10077;

export interface FilledStream {
  /** The stream's configuration before it was filled: update the stream with it to make room again. */
  config: StreamConfig;
  /** The stream's state once it refused a message. */
  full: StreamState;
  /** The refusal of the publish that did not fit. */
  refusal: unknown;
}

/**
 * Fills a stream as other traffic would: lowers its max_bytes (discard NEW) to what it holds plus
 * `headroomBytes`, then publishes 1 KiB messages on `subject` until the server refuses one for
 * lack of room. Any other failure, or no refusal after 1,000 messages, throws.
 */
export async function fillStream(
  nc: NatsConnection,
  stream: string,
  subject: string,
  headroomBytes = 32 * 1024,
): Promise<FilledStream> {
  const jsm = await nc.jetstreamManager();
  const { config, state } = await jsm.streams.info(stream);
  await jsm.streams.update(stream, {
    ...config,
    max_bytes: state.bytes + headroomBytes,
    discard: DiscardPolicy.New,
  });
  const js = nc.jetstream();
  for (let i = 0; i < 1000; i++) {
    try {
      await js.publish(subject, new Uint8Array(1024), { msgID: uniqueName('filler') });
    } catch (refusal) {
      const code = (refusal as { api_error?: { err_code?: number } }).api_error?.err_code;
      if (code !== STREAM_FULL_ERR_CODE) throw refusal;
      return { config, full: (await jsm.streams.info(stream)).state, refusal };
    }
  }
  throw new Error(`the stream ${stream} never filled`);
}

/**
 * How a request was refused, as `{ code, message }` of its AppError, or 'accepted' when it was
 * not: `expect(await refusalOf(call())).toEqual({ code: 'CONFLICT', message: ... })`. Any other
 * error is rethrown.
 */
export async function refusalOf(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string } | 'accepted'> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, message: error.message };
    throw error;
  }
  return 'accepted';
}
