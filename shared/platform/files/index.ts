export { packageRoot } from './package-root';
export { scriptStartArgs, throughTsx } from './script-start';
