// jsdom without the Fetch API classes React Router's data router needs (Request, AbortSignal that
// Request accepts): they are taken from Node, as jest-fixed-jsdom does.
const { TestEnvironment } = require('jest-environment-jsdom');

const FROM_NODE = [
  'TextEncoder',
  'TextDecoder',
  'Request',
  'Response',
  'Headers',
  'AbortController',
  'AbortSignal',
  'structuredClone',
];

class JsdomWithFetchApi extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const key of FROM_NODE) this.global[key] = globalThis[key];
  }
}

module.exports = JsdomWithFetchApi;
