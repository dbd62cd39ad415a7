export * from './errors/app-error';
