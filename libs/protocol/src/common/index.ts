export * from './chain.schema';
export * from './fields.schema';
export * from './ids.schema';
export * from './offer.schema';
export * from './schema-keys';
export * from './instance-id';
