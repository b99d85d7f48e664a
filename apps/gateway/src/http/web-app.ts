import type { DynamicModule } from '@nestjs/common';
import { ServeStaticModule } from '@nestjs/serve-static';
import { LOGGER, type Logger } from '@oasis198/service-kit';
import type { Response } from 'express';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const API = '(?:api|health|metrics)(?:/|$)';
/** Paths that belong to the API, never to the web app (a JSON 404 when no route has them). */
export const API_PATHS = new RegExp(`^/${API}`);
/**
 * The web app's routes: every path that is not the API's. A route path rather than the module's
 * `exclude`, whose error handler would turn any error on an excluded path (a body that is not
 * JSON, a path that cannot be decoded) into a 404.
 */
const APP_ROUTES = new RegExp(`^/(?!${API})`);

/**
 * The built web app on the same origin as /api (the local stack; WEB_DIST_DIR): its files, cached
 * for an hour (their names carry a content hash), and index.html, never cached, for every other
 * GET of a path outside the API, so the app's own routes load.
 */
export function webAppModule(dir: string): DynamicModule {
  const root = resolve(dir);
  const index = join(root, 'index.html');
  return ServeStaticModule.forRootAsync({
    inject: [LOGGER],
    useFactory: (logger: Logger) => {
      if (!existsSync(index)) {
        logger.warn({ root }, 'WEB_DIST_DIR has no index.html; the web app is not served');
        return [];
      }
      return [
        {
          rootPath: root,
          renderPath: APP_ROUTES,
          serveStaticOptions: {
            index: false,
            maxAge: '1h',
            setHeaders: (res: Response, path: string) => {
              if (path === index) res.setHeader('Cache-Control', 'no-cache');
            },
          },
        },
      ];
    },
  });
}
