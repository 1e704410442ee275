export { createLogger } from './logger';
export type { Logger } from './logger';
export { withoutPassword } from './redact-url';
