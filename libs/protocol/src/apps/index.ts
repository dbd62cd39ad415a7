export * from './app-spec.schema';
export * from './image-reference.schema';
export * from './resources.schema';
