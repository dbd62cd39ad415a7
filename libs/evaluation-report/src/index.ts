export * from './canonical-json';
export * from './report-signing';
