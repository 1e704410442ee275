export { FillBondCheck } from './fill-bond';
export { indexedBonds, lockMakerRights } from './fill-bond.repository';
export type { FillBondRequirements } from './fill-bond';
export type { IndexedBond } from './fill-bond.repository';
