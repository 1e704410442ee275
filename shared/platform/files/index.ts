export { packageRoot } from './package-root';
