export { mongoUrlFor, startTestInfra, useTestInfra } from './infra';
export type { TestInfra, TestInfraOptions } from './infra';
export { mongoBaseUrl, uniqueName, waitFor } from './helpers';
export type { WaitForOptions } from './helpers';
