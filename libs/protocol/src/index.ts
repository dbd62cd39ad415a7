export * from './queue-definition';
export * from './secrets';
