export * from './errors';
export * from './subjects';
export * from './events';
export * from './users';
export * from './rewards';
export * from './rooms';
export * from './http';
export * from './push';
