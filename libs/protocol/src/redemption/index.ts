export * from './redeemer-api.schema';
export * from './ticket-record.schema';
