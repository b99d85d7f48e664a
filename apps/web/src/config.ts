/**
 * Runtime configuration. It comes from `window.OASIS_CONFIG`, which `/config.js` (shipped in
 * `public/`, loaded by index.html before the app) sets, so operators can change it in the
 * container without rebuilding. This is the only module that knows where configuration lives.
 */
export interface OasisConfig {
  /** GIF service key for the opponent-waiting animation; empty disables every third-party call. */
  gifApiKey: string;
  /** The GIF service's categories endpoint, `{key}` standing for the key. */
  gifCategoriesUrl: string;
  /** The owner's site the copyright line links to. */
  ownerSiteUrl: string;
}

declare global {
  interface Window {
    OASIS_CONFIG?: Partial<OasisConfig>;
  }
}

const DEFAULTS: OasisConfig = { gifApiKey: '', gifCategoriesUrl: '', ownerSiteUrl: '/' };

export function getConfig(): OasisConfig {
  const fromWindow = typeof window === 'undefined' ? undefined : window.OASIS_CONFIG;
  const pick = (key: keyof OasisConfig): string => {
    const value = fromWindow?.[key];
    return typeof value === 'string' ? value.trim() : DEFAULTS[key];
  };
  return {
    gifApiKey: pick('gifApiKey'),
    gifCategoriesUrl: pick('gifCategoriesUrl'),
    ownerSiteUrl: pick('ownerSiteUrl') || DEFAULTS.ownerSiteUrl,
  };
}

/** The GIF service is used only when both a key and an endpoint are configured. */
export function gifServiceEnabled(config: OasisConfig = getConfig()): boolean {
  return config.gifApiKey !== '' && config.gifCategoriesUrl !== '';
}
