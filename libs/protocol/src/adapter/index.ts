export * from './runners-api.schema';
