// CPU profiles of a running service on demand, for `npm run bench -- --profile`.
// Loaded with NODE_OPTIONS="--require <this file>"; SIGUSR2 starts the V8 profiler (in-process
// inspector session), the next SIGUSR2 stops it and writes
//   $OASIS_CPU_PROFILE_DIR/<label>-<app>.cpuprofile
// (label: the first line of $OASIS_CPU_PROFILE_DIR/label, written by the bench before signalling).
// `node --cpu-prof` is no use here: it writes only on a normal exit, and NestJS re-raises SIGTERM.
'use strict';
import type * as Fs from 'node:fs';
import type * as Inspector from 'node:inspector';
import type * as Path from 'node:path';
const inspector: typeof Inspector = require('node:inspector');
const fs: typeof Fs = require('node:fs');
const path: typeof Path = require('node:path');

const dir = process.env.OASIS_CPU_PROFILE_DIR;
const app = path.basename(path.dirname(process.argv[1] || 'node'));
let session: Inspector.Session | undefined;
let running = false;

if (dir) {
  process.on('SIGUSR2', () => {
    if (!session) {
      session = new inspector.Session();
      session.connect();
      session.post('Profiler.enable');
      session.post('Profiler.setSamplingInterval', { interval: 500 });
    }
    if (!running) {
      running = true;
      session.post('Profiler.start');
      return;
    }
    running = false;
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      let label = 'profile';
      try {
        label = fs.readFileSync(path.join(dir, 'label'), 'utf8').split('\n')[0]?.trim() || label;
      } catch {
        // no label
      }
      fs.writeFileSync(path.join(dir, `${label}-${app}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
