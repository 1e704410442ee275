export type { ServiceDeps } from './service-deps';
