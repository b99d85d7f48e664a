import { contentSecurityPolicy } from '@oasis198/contracts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { helmTemplate, mainContainer, must, one, podSpec, ROOT } from './k8s';

/** The nginx files the web image's Dockerfile copies to /etc/nginx (apps/web/nginx). */
function imageFiles(): Map<string, string> {
  const dockerfile = readFileSync(path.join(ROOT, 'apps', 'web', 'Dockerfile'), 'utf8');
  expect(dockerfile).toMatch(/^COPY apps\/web\/nginx\/ \/etc\/nginx\/$/m);
  const read = (file: string) => readFileSync(path.join(ROOT, 'apps', 'web', 'nginx', file), 'utf8');
  return new Map(
    ['nginx.conf', 'oasis-headers.conf', 'oasis-csp.conf'].map((file) => [`/etc/nginx/${file}`, read(file)]),
  );
}

/** nginx `location` blocks of a configuration: path and body (no nested blocks in ours). */
function locations(conf: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of conf.matchAll(/location\s+(=\s+)?(\S+)\s*\{([^{}]*)\}/g)) {
    found.set(must(match[2], 'a location path'), must(match[3], 'a location body'));
  }
  return found;
}

describe('the web image (nginx)', () => {
  const files = imageFiles();
  const nginxConf = must(files.get('/etc/nginx/nginx.conf'), 'nginx.conf of the image');
  const headers = must(files.get('/etc/nginx/oasis-headers.conf'), 'oasis-headers.conf of the image');
  const csp = must(files.get('/etc/nginx/oasis-csp.conf'), 'oasis-csp.conf of the image');

  it('sends the headers on every location that serves the app, even on errors', () => {
    const served = locations(nginxConf);
    for (const location of ['/', '/assets/']) {
      expect([location, served.get(location)]).toEqual([
        location,
        expect.stringContaining('include /etc/nginx/oasis-headers.conf;'),
      ]);
    }
    // nginx drops inherited add_header lines in a block that adds its own: keep them all in one file.
    expect(nginxConf.replace(/^\s*#.*$/gm, '')).not.toMatch(/add_header/);
    expect(headers).toContain('include /etc/nginx/oasis-csp.conf;');
  });

  it('sends HSTS for a year, subdomains included', () => {
    expect(headers).toMatch(
      /^add_header Strict-Transport-Security "max-age=31536000; includeSubDomains" always;$/m,
    );
  });

  it('sends the strict Content-Security-Policy by default, with no third-party origin', () => {
    const header = /^add_header Content-Security-Policy "([^"]+)" always;$/m.exec(csp)?.[1];
    expect(header).toBe(contentSecurityPolicy());
    expect(header).toContain("script-src 'self'");
    expect(header).not.toMatch(/unsafe-inline|unsafe-eval|https:|\*/);
  });

  it('ships an index.html the policy allows: no inline script, style or event handler', () => {
    const html = readFileSync(path.join(ROOT, 'apps', 'web', 'index.html'), 'utf8').replace(
      /<!--[\s\S]*?-->/g,
      '',
    );
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\ssrc="\/[^"]+"/);
      expect(body?.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=|javascript:/i);
  });
});

// The chart's own origins are helm unittest's (helm/web/tests): the default is libs/contracts'.
describe('the web chart: Content-Security-Policy', () => {
  it("serves the site's own policy by default: nothing from elsewhere", () => {
    const objects = helmTemplate('web');
    const deployment = one(objects, 'Deployment');
    const mount = mainContainer(deployment).volumeMounts?.find(
      (m) => m.mountPath === '/etc/nginx/oasis-csp.conf',
    );
    const volume = podSpec(deployment).volumes?.find((v) => v.name === mount?.name);
    const config = one(objects, 'ConfigMap');
    expect(volume?.configMap?.name).toBe(config.metadata.name);
    const snippet = must(config.data?.[must(mount?.subPath, 'the CSP mount')], 'the CSP snippet');
    const header = /^add_header Content-Security-Policy "([^"]+)" always;$/m.exec(snippet)?.[1];
    expect(header).toBe(contentSecurityPolicy());
  });
});
