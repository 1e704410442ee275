export { FillBondCheck, indexedBonds, lockMakerRights } from './fill-bond';
export type { FillBondRequirements, IndexedBond } from './fill-bond';
