export { Lifecycle } from './lifecycle';
