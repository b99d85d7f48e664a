import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  AppError,
  COMMON_MESSAGES,
  editRoomBodySchema,
  type ErrorEnvelope,
  type EditRoomResponse,
  HTTP_STATUS_BY_CODE,
  MAX_BODY_BYTES,
  parseWith,
  PUSH_HEARTBEAT_SECONDS,
  Requests,
  ROOM_SOCKET_CLOSE,
  ROOM_SOCKET_MAX_IN_FLIGHT,
  ROOM_SOCKET_PATH,
  ROOM_SOCKET_PROTOCOL,
  ROOM_SOCKET_TOKEN_PREFIX,
  type RoomSocketAnswer,
  roomSocketRequestSchema,
} from '@oasis198/contracts';
import {
  CONFIG,
  LOGGER,
  type Logger,
  Metrics,
  RetryLaterError,
  RpcClient,
  runWithRequestId,
  httpAnswerOf,
  toEnvelope,
  type VerifiedToken,
} from '@oasis198/service-kit';
import type { Application } from 'express';
import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { Counter, Gauge, Histogram } from 'prom-client';
import proxyaddr from 'proxy-addr';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { JwtStrategy } from '../auth/jwt.strategy';
import type { GatewayConfig } from '../config';
import { clientAddressKey, IPV6_PREFIX_SETTING } from '../http/client-address';
import { countPerUser, GatewayLimits } from '../http/rate-limit';
import { RoomPushService } from './room-push.service';
import { editLimitOf } from './rooms.controller';

const TOO_MANY_IN_FLIGHT = `At most ${ROOM_SOCKET_MAX_IN_FLIGHT} requests may wait for their answers on one connection.`;
const NOT_JSON = 'A frame must be one JSON object: { id, roomId, body }.';

/**
 * The room socket (ADR 0035): `PATCH /api/rooms/:id/edit` as frames on one WebSocket per player,
 * with no HTTP request, header parsing, helmet or passport per move. The token is checked once at
 * the upgrade, and its expiry and revocations again with every request; the body, the per-user
 * limits and the rooms service's answers are the route's. A socket takes one of its address's
 * push-stream places, as it holds memory as a stream does.
 */
@Injectable()
export class RoomSocketService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly server = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_BODY_BYTES,
    // Frames are small JSON; compression would cost CPU per move for little.
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has(ROOM_SOCKET_PROTOCOL) ? ROOM_SOCKET_PROTOCOL : false),
  });
  /** The open sockets: whether each answered the last ping, and its requests waiting for answers. */
  private readonly sockets = new Map<WebSocket, { alive: boolean; inFlight: number }>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly requests: Histogram<'status'>;
  private readonly refusedUpgrades: Counter<'status'>;
  private closing = false;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly rpc: RpcClient,
    private readonly tokens: JwtStrategy,
    private readonly limits: GatewayLimits,
    private readonly push: RoomPushService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    metrics: Metrics,
  ) {
    const sockets = this.sockets;
    new Gauge({
      name: 'oasis_room_sockets',
      help: 'Room sockets open on this gateway replica.',
      registers: [metrics.registry],
      collect() {
        this.set(sockets.size);
      },
    });
    this.requests = new Histogram({
      name: 'oasis_room_socket_request_duration_seconds',
      help: 'Room edits over the room socket, by the HTTP status of their answer.',
      labelNames: ['status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [metrics.registry],
    });
    this.refusedUpgrades = new Counter({
      name: 'oasis_room_socket_refused_total',
      help: 'Room socket upgrades refused, by HTTP status.',
      labelNames: ['status'],
      registers: [metrics.registry],
    });
    // A peer that answers no ping within a beat is gone: its place is freed.
    this.heartbeat = setInterval(() => this.beat(), PUSH_HEARTBEAT_SECONDS * 1000);
    this.heartbeat.unref();
  }

  onApplicationBootstrap(): void {
    const http = this.adapterHost.httpAdapter.getHttpServer() as Server;
    http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      this.upgrade(request, socket, head).catch((error: unknown) => {
        this.logger.error({ err: error }, 'room socket upgrade failed');
        socket.destroy();
      });
    });
  }

  /**
   * Closes every socket (1001, going away) once its requests are answered: the clients go on over
   * HTTP, or reconnect to another replica, with no answer lost.
   */
  beforeApplicationShutdown(): void {
    this.closing = true;
    clearInterval(this.heartbeat);
    for (const [ws, state] of this.sockets) if (state.inFlight === 0) this.goAway(ws);
  }

  private goAway(ws: WebSocket): void {
    ws.close(ROOM_SOCKET_CLOSE.goingAway, 'server shutting down');
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const path = (request.url ?? '').split('?')[0];
    if (path !== ROOM_SOCKET_PATH)
      return this.refuse(socket, { code: 'NOT_FOUND', message: COMMON_MESSAGES.notFound });
    if (this.closing)
      return this.refuse(socket, { code: 'UNAVAILABLE', message: COMMON_MESSAGES.unavailable });
    const token = offeredToken(request.headers['sec-websocket-protocol']);
    if (token === null)
      return this.refuse(socket, { code: 'UNAUTHORIZED', message: COMMON_MESSAGES.unauthorized });
    let claims: VerifiedToken;
    let release: () => void;
    try {
      claims = await this.tokens.verifyToken(token);
      await this.tokens.callerOf(claims);
      release = this.push.takePlace(this.clientAddress(request));
    } catch (error) {
      return this.refuse(socket, toEnvelope(error, this.logger));
    }
    if (socket.destroyed) return release();
    this.server.handleUpgrade(request, socket, head, (ws) => this.serve(ws, claims, release));
  }

  private refuse(socket: Duplex, envelope: ErrorEnvelope): void {
    this.refusedUpgrades.inc({ status: String(HTTP_STATUS_BY_CODE[envelope.code]) });
    refuse(socket, envelope);
  }

  /** The client's address as the HTTP routes count it (trust proxy, IPv6 networks). */
  private clientAddress(request: IncomingMessage): string {
    const app = this.adapterHost.httpAdapter.getInstance<Application>();
    const trust = app.get('trust proxy fn') as Parameters<typeof proxyaddr>[1];
    return clientAddressKey(proxyaddr(request, trust), app.get(IPV6_PREFIX_SETTING) as number);
  }

  private serve(ws: WebSocket, claims: VerifiedToken, release: () => void): void {
    const state = { alive: true, inFlight: 0 };
    this.sockets.set(ws, state);
    ws.on('pong', () => (state.alive = true));
    ws.on('close', () => {
      this.sockets.delete(ws);
      release();
    });
    ws.on('error', () => ws.terminate());
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      const frame = readFrame(data, isBinary);
      if (state.inFlight >= ROOM_SOCKET_MAX_IN_FLIGHT) {
        this.send(
          ws,
          refusal(frame.id, new RetryLaterError('RATE_LIMITED', TOO_MANY_IN_FLIGHT, 1), this.logger),
        );
        return;
      }
      state.inFlight++;
      const started = process.hrtime.bigint();
      runWithRequestId(randomUUID(), () =>
        this.handle(ws, claims, frame)
          .catch((error: unknown) => refusal(frame.id, error, this.logger))
          .then((answer) => {
            this.requests.observe(
              { status: String(answer.status) },
              Number(process.hrtime.bigint() - started) / 1e9,
            );
            if (answer.status >= 500)
              this.logger.error({ status: answer.status, id: answer.id }, 'room socket request failed');
            this.send(ws, answer);
          })
          .finally(() => {
            state.inFlight--;
            if (this.closing && state.inFlight === 0) this.goAway(ws);
          }),
      );
    });
  }

  private async handle(ws: WebSocket, claims: VerifiedToken, frame: Frame): Promise<RoomSocketAnswer> {
    if (frame.parsed === undefined) throw new AppError('VALIDATION', NOT_JSON);
    const { id, roomId, body: raw } = parseWith(roomSocketRequestSchema, frame.parsed);
    let caller;
    try {
      caller = await this.tokens.callerOf(claims);
    } catch (error) {
      // An expired or ended token ends the socket too: every later request would be refused alike.
      if (error instanceof AppError && error.code === 'UNAUTHORIZED') {
        setImmediate(() => ws.close(ROOM_SOCKET_CLOSE.invalidToken, 'invalid token'));
      }
      throw error;
    }
    // As the route: counted before the body is judged, so a refused body counts too.
    await countPerUser(this.limits, editLimitOf(raw), caller.userId);
    const body = parseWith(editRoomBodySchema, raw ?? {});
    const answer = await this.rpc.request<EditRoomResponse>(Requests.rooms.edit, { caller, roomId, body });
    return { id, status: 200, body: answer };
  }

  /** A client that does not read its answers is cut once they owe it more than a push stream may. */
  private send(ws: WebSocket, answer: RoomSocketAnswer): void {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > this.config.PUSH_BUFFER_BYTES_PER_STREAM) {
      this.logger.warn('closing a room socket whose client does not read');
      ws.terminate();
      return;
    }
    ws.send(JSON.stringify(answer));
  }

  private beat(): void {
    for (const [ws, state] of this.sockets) {
      if (!state.alive) {
        ws.terminate();
        continue;
      }
      state.alive = false;
      ws.ping();
    }
  }
}

/** The token of a `bearer.<token>` subprotocol beside ROOM_SOCKET_PROTOCOL; null when either is missing. */
function offeredToken(header: string | undefined): string | null {
  if (!header) return null;
  const offered = header.split(',').map((p) => p.trim());
  if (!offered.includes(ROOM_SOCKET_PROTOCOL)) return null;
  const bearer = offered.find((p) => p.startsWith(ROOM_SOCKET_TOKEN_PREFIX));
  return bearer ? bearer.slice(ROOM_SOCKET_TOKEN_PREFIX.length) : null;
}

/** A frame as read once: its JSON (undefined when it is none) and its id when it has a valid one. */
interface Frame {
  parsed: unknown;
  id: number | null;
}

function readFrame(data: RawData, isBinary: boolean): Frame {
  if (isBinary) return { parsed: undefined, id: null };
  try {
    const parsed: unknown = JSON.parse(data.toString());
    const id = (parsed as { id?: unknown } | null)?.id;
    return { parsed, id: Number.isInteger(id) && (id as number) >= 0 ? (id as number) : null };
  } catch {
    return { parsed: undefined, id: null };
  }
}

/** The refusal of a request, with the status, body and Retry-After the HTTP route would answer. */
function refusal(id: number | null, error: unknown, logger: Logger): RoomSocketAnswer {
  return { id, ...httpAnswerOf(toEnvelope(error, logger)) };
}

/** Refuses an upgrade with an HTTP answer and the same JSON body as the API's errors. */
function refuse(socket: Duplex, envelope: ErrorEnvelope): void {
  if (socket.destroyed) return;
  const { status, body: answer, retryAfterS } = httpAnswerOf(envelope);
  const body = JSON.stringify(answer);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      (retryAfterS !== undefined ? `Retry-After: ${retryAfterS}\r\n` : '') +
      'Connection: close\r\n\r\n' +
      body,
  );
}
