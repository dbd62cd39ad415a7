export * from './hash-share';
export * from './keystream';
