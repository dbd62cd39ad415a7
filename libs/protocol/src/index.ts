export * from './errors/error-codes';
export * from './queue-definition';
export * from './secrets';
