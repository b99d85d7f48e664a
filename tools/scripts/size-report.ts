// Prints the gzip sizes of the built web app and fails when the JavaScript loaded up front (the
// entry script and its modulepreloads, as index.html lists them) exceeds the budget.
// Usage: node tools/scripts/size-report.ts <dist dir> [budget kB]   (web's build target runs it)
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = resolve(process.argv[2] ?? 'dist/apps/web');
const budgetKb = Number(process.argv[3] ?? 200);
const KB = 1000;

const html = readFileSync(join(dist, 'index.html'), 'utf8');
const attr = (tag: string, name: string) => tag.match(new RegExp(`${name}="([^"]+)"`))?.[1];
const tags = html.match(/<(script|link)\b[^>]*>/g) ?? [];
const initialJs: string[] = [];
const initialCss: string[] = [];
for (const tag of tags) {
  const [src, href] = [attr(tag, 'src'), attr(tag, 'href')];
  if (tag.startsWith('<script') && attr(tag, 'type') === 'module' && src) initialJs.push(src);
  if (tag.startsWith('<link') && attr(tag, 'rel') === 'modulepreload' && href) initialJs.push(href);
  if (tag.startsWith('<link') && attr(tag, 'rel') === 'stylesheet' && href) initialCss.push(href);
}

const sizeOf = (url: string) => {
  const bytes = readFileSync(join(dist, url.replace(/^\//, '')));
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
};
const kb = (n: number) => `${(n / KB).toFixed(2)} kB`.padStart(11);
const out = (line = '') => process.stdout.write(`${line}\n`);

const table = (title: string, files: string[]) => {
  let raw = 0;
  let gzip = 0;
  out(title);
  for (const file of files) {
    const size = sizeOf(file);
    raw += size.raw;
    gzip += size.gzip;
    out(`  ${file.padEnd(48)} ${kb(size.raw)} ${kb(size.gzip)} gzip`);
  }
  out(`  ${'total'.padEnd(48)} ${kb(raw)} ${kb(gzip)} gzip`);
  return gzip;
};

out('Web app bundle sizes');
const jsGzip = table('Initial JavaScript (entry + modulepreload):', initialJs);
table('Initial CSS:', initialCss);
const assets = readdirSync(join(dist, 'assets'));
const lazy = assets
  .filter((f) => f.endsWith('.js') && !initialJs.some((u) => u.endsWith(`/${f}`)))
  .map((f) => `/assets/${f}`);
table('Lazy chunks (loaded per screen group):', lazy);

if (initialJs.length === 0) {
  process.stderr.write('size-report: no initial script found in index.html\n');
  process.exit(1);
}
if (jsGzip > budgetKb * KB) {
  process.stderr.write(
    `size-report: initial JavaScript is ${(jsGzip / KB).toFixed(2)} kB gzipped, over the ${budgetKb} kB budget\n`,
  );
  process.exit(1);
}
out(`Initial JavaScript: ${(jsGzip / KB).toFixed(2)} kB gzipped (budget ${budgetKb} kB): OK`);
