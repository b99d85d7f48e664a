// SYSTEM_SCENARIOS splits the browser scenarios between npm test's end-to-end stage (E2E_SKIP)
// and its container stage (file filters): a name that matches no file would run nowhere.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SYSTEM_SCENARIOS } from './stack.ts';
import { ROOT } from './workspace.ts';

test('every system scenario names a scenario file, and the end-to-end stage keeps some', () => {
  const files = readdirSync(path.join(ROOT, 'apps', 'e2e', 'src')).filter((f) => f.endsWith('.e2e.ts'));
  for (const name of SYSTEM_SCENARIOS) assert.ok(files.includes(`${name}.e2e.ts`), `no ${name}.e2e.ts`);
  assert.ok(files.length > SYSTEM_SCENARIOS.length);
});
