export { hashSecret, secretMatches } from './secret-hash';
