export * from './runners-api.schema';
export * from './sessions-view.schema';
