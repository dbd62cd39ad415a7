export * from './winning-ticket-batch.schema';
export * from './winning-ticket.schema';
