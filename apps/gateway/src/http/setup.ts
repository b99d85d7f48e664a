import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import {
  AppError,
  contentSecurityPolicyDirectives,
  HTTP_STATUS_BY_CODE,
  MAX_BODY_BYTES,
  REQUEST_ID_HEADER,
  TOTAL_COUNT_HEADER,
} from '@oasis198/contracts';
import {
  isBodyParserError,
  Lifecycle,
  LOGGER,
  type Logger,
  Metrics,
  runWithRequestId,
  sanitizeRequestId,
  toEnvelope,
} from '@oasis198/service-kit';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { Histogram } from 'prom-client';
import type { GatewayConfig } from '../config';
import { IPV6_PREFIX_SETTING } from './client-address';
import { closeConnectionsWhenShuttingDown } from './keep-alive';
import { apiDocument } from './openapi';
import { API_PATHS } from './web-app';

const API_DOCS = /^\/api\/docs(\/|$|-json)/;

/** Everything the public HTTP edge needs before the routes: hardening, limits, ids, validation, docs. */
export function configureHttp(nest: INestApplication, config: GatewayConfig): void {
  const app = nest as NestExpressApplication;
  const logger = app.get<Logger>(LOGGER);
  const metrics = app.get(Metrics);

  app.set('trust proxy', config.TRUST_PROXY);
  app.set(IPV6_PREFIX_SETTING, config.LIMIT_IPV6_PREFIX);
  // Idle connections outlive the proxy's (HTTP_KEEP_ALIVE_TIMEOUT_S); the headers' deadline must
  // exceed it, or Node would end a kept-alive connection's next request early.
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_S * 1000;
  server.headersTimeout = server.keepAliveTimeout + 1000;
  app.use(closeConnectionsWhenShuttingDown(app.get(Lifecycle)));
  app.disable('x-powered-by');
  // The web app's strict Content-Security-Policy on everything it serves (the local stack serves
  // the web app here, so the browser tests run under the policy the web image sends), and on the
  // API. HSTS is helmet's default (a year, subdomains), sent always: browsers ignore it on plain
  // http and for IP addresses, so the local stack on http://127.0.0.1 is unaffected.
  const strict = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicyDirectives() },
  });
  // The API documentation page (Swagger UI) needs inline styles and data: images.
  const docs = helmet({
    contentSecurityPolicy: {
      directives: {
        'img-src': ["'self'", 'data:'],
        // The local stack runs on plain http://127.0.0.1; TLS is the ingress's job.
        'upgrade-insecure-requests': null,
      },
    },
  });
  app.use((req: Request, res: Response, next: NextFunction) =>
    (API_DOCS.test(req.path) ? docs : strict)(req, res, next),
  );
  // API answers carry tokens and players' data: no cache, private or shared, keeps a copy (the
  // push streams set their own).
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (API_PATHS.test(req.path)) res.setHeader('Cache-Control', 'no-store');
    next();
  });
  app.enableCors(
    config.CORS_ORIGINS.length
      ? {
          origin: config.CORS_ORIGINS,
          methods: ['GET', 'POST', 'PATCH', 'DELETE'],
          // Headers a cross-origin client may read: the size of a paged list.
          exposedHeaders: [TOTAL_COUNT_HEADER],
          maxAge: 600,
          // A preflight's answer comes from refuseUndeclaredMethods, as any OPTIONS does: 204 and
          // `Allow` on a path the API has, 404 on one it has not.
          preflightContinue: true,
        }
      : { origin: false },
  );
  app.useBodyParser('json', { limit: MAX_BODY_BYTES });
  // Nest would turn a JSON syntax error into a 400 carrying the parser's own text; a body parser
  // failure becomes our envelope here instead (400 saying why, or 413).
  app.use((error: unknown, _req: Request, _res: Response, next: NextFunction) =>
    next(isBodyParserError(error) ? AppError.from(toEnvelope(error)) : error),
  );

  const httpDuration = new Histogram({
    name: 'oasis_http_request_duration_seconds',
    help: 'HTTP requests by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [metrics.registry],
  });

  // Request id on every log line and every NATS hop; access log and metrics per request.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const requestId = sanitizeRequestId(req.headers[REQUEST_ID_HEADER]) ?? randomUUID();
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The web app's index.html answers a pattern route; it counts as static, like its files.
      const path: unknown = req.route?.path;
      const route = typeof path === 'string' ? path : API_PATHS.test(req.path) ? 'unmatched' : 'static';
      httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      runWithRequestId(requestId, () => {
        const line = {
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Math.round(seconds * 1000),
        };
        if (res.statusCode >= 500) logger.error(line, 'request failed');
        else if (res.statusCode >= 400) logger.info(line, 'request refused');
        else logger.debug(line, 'request');
      });
    });
    runWithRequestId(requestId, next);
  });

  const document = apiDocument(app);
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs/openapi.json' });
  app.use(refuseUndeclaredMethods(document));
}

const OPERATIONS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * 405 with an `Allow` header for a method the API does not declare on a path it has, from the
 * OpenAPI document (which lists every route the gateway serves); a path it does not have stays a
 * 404. OPTIONS on a path it has answers 204 with `Allow` (RFC 9110), and the CORS headers
 * when it is a preflight of an allowed origin (enableCors added them). HEAD of a GET passes on.
 */
export function refuseUndeclaredMethods(document: OpenAPIObject) {
  const routes = Object.entries(document.paths).map(([template, item]) => {
    const parts = template.replace(/\/$/, '').split(/\{[^}]+\}/);
    return {
      pattern: new RegExp(`^${parts.map(escapeRegExp).join('[^/]+')}/?$`, 'i'),
      templated: parts.length > 1,
      methods: OPERATIONS.filter((method) => item[method]).map((method) => method.toUpperCase()),
    };
  });
  return (req: Request, res: Response, next: NextFunction) => {
    const matching = routes.filter((r) => r.pattern.test(req.path));
    // As OpenAPI matches: a concrete path before a templated one (/api/rooms/play-now is not a room id).
    const concrete = matching.filter((r) => !r.templated);
    const declared = new Set((concrete.length ? concrete : matching).flatMap((r) => r.methods));
    if (declared.has('GET')) declared.add('HEAD');
    if (declared.size === 0 || declared.has(req.method)) return next();
    const allowed = [...declared, 'OPTIONS'].join(', ');
    res.setHeader('Allow', allowed);
    if (req.method === 'OPTIONS') return void res.status(204).end();
    res.status(HTTP_STATUS_BY_CODE.METHOD_NOT_ALLOWED).json({
      message: `${req.method} is not allowed here. Allowed: ${allowed}.`,
      code: 'METHOD_NOT_ALLOWED',
    });
  };
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Express-level errors (a body that is too large or not JSON) become the same JSON error as any other. */
export function handleEdgeErrors(nest: INestApplication): void {
  const app = nest as NestExpressApplication;
  const logger = app.get<Logger>(LOGGER);
  app.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const envelope = toEnvelope(error, logger);
    res.status(HTTP_STATUS_BY_CODE[envelope.code]).json({ message: envelope.message, code: envelope.code });
  });
}
