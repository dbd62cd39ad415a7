export * from './drain-duration';
export * from './drain-api.schema';
