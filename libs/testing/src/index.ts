export { mongoUrlFor, startTestInfra, useTestInfra } from './infra';
export type { TestInfra, TestInfraOptions } from './infra';
export { mongoBaseUrl, uniqueName, waitFor } from './helpers';
export type { WaitForOptions } from './helpers';
export { fillStream, recordEvents, recordPushes, refusalOf, STREAM_FULL_ERR_CODE } from './streams';
export type { FilledStream, RecordedPush } from './streams';
export { startServiceProcess } from './services';
export type { ServiceName, ServiceProcess } from './services';
export { roomView, sec, startedGame, T0 } from './room-views';
