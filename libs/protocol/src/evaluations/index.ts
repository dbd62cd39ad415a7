export * from './evaluation-report.schema';
export * from './verifier-api.schema';
export * from './responder-api.schema';
