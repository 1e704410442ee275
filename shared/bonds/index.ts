export { FillBondCheck, indexedBonds } from './fill-bond';
export type { FillBondRequirements, IndexedBond } from './fill-bond';
