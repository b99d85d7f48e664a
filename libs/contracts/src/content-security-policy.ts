/**
 * The web app's Content-Security-Policy. Tokens live in localStorage, so injected script must have
 * nowhere to run: scripts, styles, fonts and everything else come from the site itself, never
 * inline or from eval; no plugins, no <base>, no framing, forms post only to the site. Only images
 * and API calls may reach further, to the optional GIF service, whose origins the operator names
 * (the web chart's contentSecurityPolicy value).
 *
 * The one definition: the gateway sends it with the web app it serves (local stack), and the chart
 * tests check the web image's nginx default and the web chart's rendering against it.
 */
export const CONTENT_SECURITY_POLICY = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'"],
  'connect-src': ["'self'"],
  'font-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'frame-ancestors': ["'none'"],
  'form-action': ["'self'"],
} as const satisfies Record<string, readonly string[]>;

export interface CspExtraOrigins {
  /** Origins the app may call (the GIF service's API). */
  connectSrc?: readonly string[];
  /** Origins images may come from (the GIF service's image host). */
  imgSrc?: readonly string[];
}

/** The policy's directives, with extra origins for connect-src and img-src. */
export function contentSecurityPolicyDirectives(extra: CspExtraOrigins = {}): Record<string, string[]> {
  const directives: Record<string, string[]> = {};
  for (const [name, sources] of Object.entries(CONTENT_SECURITY_POLICY)) directives[name] = [...sources];
  directives['img-src']?.push(...(extra.imgSrc ?? []));
  directives['connect-src']?.push(...(extra.connectSrc ?? []));
  return directives;
}

/** The Content-Security-Policy header value. */
export function contentSecurityPolicy(extra: CspExtraOrigins = {}): string {
  return Object.entries(contentSecurityPolicyDirectives(extra))
    .map(([name, sources]) => [name, ...sources].join(' '))
    .join('; ');
}
