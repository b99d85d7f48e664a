// jsdom with Node's Fetch API (fetch, Request, Response, streams), as jest-fixed-jsdom does: React
// Router's data router needs Request, and MSW answers the app's real fetch. FormData, Blob and URL
// stay jsdom's, which forms need. Packages resolve by their default exports, so msw/node loads.
const { TestEnvironment } = require('jest-environment-jsdom');

const FROM_NODE = [
  'fetch',
  'Headers',
  'Request',
  'Response',
  'ReadableStream',
  'WritableStream',
  'TransformStream',
  'TextDecoderStream',
  'TextEncoderStream',
  'TextEncoder',
  'TextDecoder',
  'BroadcastChannel',
  'AbortController',
  'AbortSignal',
  'structuredClone',
];

class JsdomWithFetchApi extends TestEnvironment {
  constructor(config, context) {
    super(
      {
        ...config,
        projectConfig: {
          ...config.projectConfig,
          testEnvironmentOptions: {
            customExportConditions: [''],
            ...config.projectConfig.testEnvironmentOptions,
          },
        },
      },
      context,
    );
    for (const key of FROM_NODE) this.global[key] = globalThis[key];
  }
}

module.exports = JsdomWithFetchApi;
