export * from './instance-manager-api.schema';
