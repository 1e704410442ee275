export { Metrics } from './metrics';
