import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';

let counter = 0;

/**
 * A name no other test run uses, safe as a MongoDB database name, a NATS stream or durable
 * consumer name and a subject token: lower-case letters, digits and '-', at most 50 characters.
 * e.g. uniqueName('Rooms Test') -> 'rooms-test-m3x9k2-1-9f3a1c'
 */
export function uniqueName(prefix: string): string {
  const clean =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 24) || 't';
  counter += 1;
  return `${clean}-${Date.now().toString(36)}-${counter.toString(36)}-${randomBytes(3).toString('hex')}`;
}

const MONGO_URL = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(?:\/([^?]*))?(?:\?(.*))?$/;

function parseMongoUrl(url: string): { hosts: string; query: string } {
  const match = MONGO_URL.exec(url.trim());
  if (!match?.[1]) throw new Error(`Not a MongoDB connection string: ${url}`);
  return { hosts: match[1], query: match[3] ?? '' };
}

/** A MongoDB connection string without its database name (options are kept). */
export function mongoBaseUrl(url: string): string {
  const { hosts, query } = parseMongoUrl(url);
  return query ? `${hosts}/?${query}` : hosts;
}

/** The connection string for one database: mongoUrlWithDb('mongodb://h:1', 'x') -> 'mongodb://h:1/x'. */
export function mongoUrlWithDb(url: string, dbName: string): string {
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(dbName)) {
    throw new Error(`Bad database name "${dbName}": use letters, digits, '_' and '-' (at most 63)`);
  }
  const { hosts, query } = parseMongoUrl(url);
  return `${hosts}/${dbName}${query ? `?${query}` : ''}`;
}

/** The workspace root (the folder with nx.json), found from the working directory or this file. */
export function workspaceRoot(): string {
  const starts = [process.cwd(), typeof __dirname === 'string' ? __dirname : undefined];
  for (const start of starts) {
    for (let dir = start; dir;) {
      if (existsSync(path.join(dir, 'nx.json'))) return dir;
      const parent = path.dirname(dir);
      dir = parent === dir ? undefined : parent;
    }
  }
  throw new Error('Cannot find the workspace root (no nx.json above the working directory)');
}
