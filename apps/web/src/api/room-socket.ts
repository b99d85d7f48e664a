import {
  ApiPaths,
  type EditRoomBody,
  type EditRoomResponse,
  isRoomSocketSuccess,
  ROOM_SOCKET_PATH,
  ROOM_SOCKET_PROTOCOL,
  ROOM_SOCKET_TOKEN_PREFIX,
  type RoomSocketAnswer,
} from '@oasis198/contracts';
import { apiRequest, refused } from './client';
import { getSession, subscribeSession } from './session';

/** How long a request on the socket waits for its answer before the socket counts as lost. */
const ANSWER_TIMEOUT_MS = 10_000;
/** After a socket that failed to open, or closed, how long edits go over HTTP before another try. */
const RETRY_AFTER_MS = 5_000;

type Waiting = { resolve: (answer: RoomSocketAnswer) => void; reject: (error: Error) => void };

/** Why a request on the socket got no answer: it goes again over HTTP. */
class SocketLost extends Error {}

/**
 * The player's room socket (ADR 0035): room edits as frames on one WebSocket instead of an HTTP
 * request each. It opens on the first edit, for the logged-in user's token, and stays open while
 * that token is the session's. Whenever it is not open (still opening, refused, lost, or a browser
 * that does not allow it), the edit goes as PATCH /api/rooms/:id/edit, with the same answers.
 */
class RoomSocket {
  private ws: WebSocket | null = null;
  private token: string | null = null;
  private next = 1;
  private readonly waiting = new Map<number, Waiting>();
  private notBefore = 0;

  /** Opens the socket ahead of the first edit (a room screen for a logged-in player). */
  prepare(): void {
    const session = getSession();
    if (session) this.openFor(session.token);
  }

  async edit(roomId: string, body: EditRoomBody): Promise<EditRoomResponse> {
    const session = getSession();
    const ws = session ? this.openFor(session.token) : null;
    if (!session || ws?.readyState !== WebSocket.OPEN) return viaHttp(roomId, body);
    let answer: RoomSocketAnswer;
    try {
      answer = await this.request(ws, roomId, body);
    } catch (error) {
      // No answer came (the socket closed or went quiet): the edit may or may not have been made,
      // as after a lost HTTP answer. Sent again over HTTP, a move already made is refused (409).
      if (error instanceof SocketLost) return viaHttp(roomId, body);
      throw error;
    }
    if (isRoomSocketSuccess(answer)) return answer.body;
    throw refused(answer.status, answer.body, session);
  }

  /** The socket for this token: the open one, or one started now (null while waiting to try again). */
  private openFor(token: string): WebSocket | null {
    if (this.ws && this.token !== token) this.close();
    if (this.ws) return this.ws;
    if (Date.now() < this.notBefore || typeof WebSocket === 'undefined') return null;
    const url = new URL(ROOM_SOCKET_PATH, window.location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws: WebSocket;
    try {
      ws = new WebSocket(url, [ROOM_SOCKET_PROTOCOL, ROOM_SOCKET_TOKEN_PREFIX + token]);
    } catch {
      this.notBefore = Date.now() + RETRY_AFTER_MS;
      return null;
    }
    this.ws = ws;
    this.token = token;
    ws.onmessage = (event) => this.answered(event.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.notBefore = Date.now() + RETRY_AFTER_MS;
      this.failWaiting();
    };
    return ws;
  }

  private request(ws: WebSocket, roomId: string, body: EditRoomBody): Promise<RoomSocketAnswer> {
    const id = this.next++;
    return new Promise<RoomSocketAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        // A socket that does not answer is not trusted with the next edits for a while.
        if (this.ws === ws) {
          this.close();
          this.notBefore = Date.now() + RETRY_AFTER_MS;
        }
        reject(new SocketLost('no answer'));
      }, ANSWER_TIMEOUT_MS);
      this.waiting.set(id, {
        resolve: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      ws.send(JSON.stringify({ id, roomId, body }));
    });
  }

  private answered(data: unknown): void {
    if (typeof data !== 'string') return;
    let answer: RoomSocketAnswer;
    try {
      answer = JSON.parse(data) as RoomSocketAnswer;
    } catch {
      return;
    }
    if (answer.id === null) return;
    const waiting = this.waiting.get(answer.id);
    this.waiting.delete(answer.id);
    waiting?.resolve(answer);
  }

  private failWaiting(): void {
    for (const waiting of this.waiting.values()) waiting.reject(new SocketLost('closed'));
    this.waiting.clear();
  }

  sessionChanged(token: string | null): void {
    if (this.ws && this.token !== token) this.close();
  }

  /** Closes the socket on purpose (a new session): the next edit may open another at once. */
  close(): void {
    const ws = this.ws;
    this.ws = null;
    this.token = null;
    this.notBefore = 0;
    this.failWaiting();
    ws?.close();
  }
}

const viaHttp = (roomId: string, body: EditRoomBody) =>
  apiRequest<EditRoomResponse>(ApiPaths.editRoom(roomId), { method: 'PATCH', body, auth: true });

export const roomSocket = new RoomSocket();

// A logout or another user's login, here or in another tab, ends the old token's socket at once.
subscribeSession(() => {
  roomSocket.sessionChanged(getSession()?.token ?? null);
});
