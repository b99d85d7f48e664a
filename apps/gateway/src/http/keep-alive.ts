import type { Lifecycle } from '@oasis198/service-kit';
import type { NextFunction, Request, Response } from 'express';

/**
 * Once shutdown starts, every answer says `Connection: close`. Node's server.close() ends a
 * kept-alive connection right after its answer, which otherwise says keep-alive: the client would
 * send its next request on a socket that is closing and get no answer (a lost move).
 */
export function closeConnectionsWhenShuttingDown(lifecycle: Pick<Lifecycle, 'shuttingDown'>) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const writeHead = res.writeHead;
    // Checked when the answer's head goes out, not when the request came: a request in flight at
    // the start of the shutdown is answered after it.
    res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
      if (lifecycle.shuttingDown && !this.headersSent) this.setHeader('Connection', 'close');
      return writeHead.apply(this, args);
    } as Response['writeHead'];
    next();
  };
}
