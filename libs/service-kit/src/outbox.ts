/** The transactional outbox (outbox/outbox-document.ts tells how it works) and its relay. */
export * from './outbox/outbox-document';
export * from './outbox/outbox-relay';
export * from './outbox/publisher-env';
export * from './outbox/published-stream';
