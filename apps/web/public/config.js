// Runtime configuration, read by the web app at start-up. Operators may replace this file in the
// container (for example to enable the GIF service) without rebuilding the app.
window.OASIS_CONFIG = {
  // API key of the GIF service shown while waiting for an opponent. Empty: a bundled animation is
  // shown instead and no third-party call is made.
  gifApiKey: '',
  // The GIF service's categories endpoint; {key} is replaced by gifApiKey, locale en_US is added.
  gifCategoriesUrl: '',
};
