export * from './canonical-json';
export * from './report-signing';
export * from './challenges';
