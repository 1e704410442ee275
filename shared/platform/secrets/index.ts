export { hashSecret, secretMatches } from './secret-hash';
export { pooledRandomBytes } from './random-pool';
