// The workspace's TypeScript libraries for the scripts Node runs as they are: @swc-node/register
// compiles them on load, and a resolve hook maps the @oasis198/* names to their sources, as the
// tsconfig paths do for the compiler.
import module, { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Contracts from '@oasis198/contracts';
import { ROOT } from './workspace.ts';

module.registerHooks({
  resolve(specifier, context, next) {
    const lib = /^@oasis198\/([a-z-]+)$/.exec(specifier)?.[1];
    if (!lib) return next(specifier, context);
    return { url: pathToFileURL(path.join(ROOT, 'libs', lib, 'src', 'index.ts')).href, shortCircuit: true };
  },
});

const require = createRequire(path.join(ROOT, 'package.json'));
require('@swc-node/register');

export const contracts: typeof Contracts = require(path.join(ROOT, 'libs', 'contracts', 'src', 'index.ts'));
