export * from './evaluation-report.schema';
export * from './verifier-api.schema';
