import type { Abi, AbiParameter } from 'viem';
import {
  bondVaultAbi,
  fillAuthorityAbi,
  lendingMarketAbi,
  mockErc20Abi,
  mothershipAbi,
  optionPairAbi,
  pairFactoryAbi,
  priceOracleAbi,
} from '../../../shared/chain/abis';
import { loadArtifact, type ContractName } from '../../../dev/contract-artifacts';

/** shared/chain/abis.ts is written by hand for viem's types; it must say what solc says. */

type Item = Abi[number];

/** Compares what matters to a decoder: names, types, indexing, nesting, mutability. */
function normalise(item: Item): unknown {
  const param = (p: AbiParameter): unknown => ({
    name: p.name ?? '',
    type: p.type,
    // parseAbi omits `indexed: false`; solc writes it. Only `true` carries meaning.
    indexed: 'indexed' in p && p.indexed ? true : undefined,
    components: 'components' in p && p.components ? p.components.map(param) : undefined,
  });
  return JSON.parse(
    JSON.stringify({
      type: item.type,
      name: 'name' in item ? item.name : undefined,
      inputs: 'inputs' in item ? item.inputs.map(param) : undefined,
      outputs: 'outputs' in item ? item.outputs.map(param) : undefined,
      stateMutability: item.type === 'function' ? item.stateMutability : undefined,
      anonymous: item.type === 'event' ? !!item.anonymous : undefined,
    }),
  );
}

const key = (item: Item) => `${item.type} ${'name' in item ? item.name : ''}`;

describe.each<[ContractName, Abi]>([
  ['Mothership', mothershipAbi],
  ['PairFactory', pairFactoryAbi],
  ['OptionPair', optionPairAbi],
  ['MockERC20', mockErc20Abi],
  ['BondVault', bondVaultAbi],
  ['PriceOracle', priceOracleAbi],
  ['LendingMarket', lendingMarketAbi],
  ['AllowlistFillAuthority', fillAuthorityAbi],
])('%s ABI in shared/chain/abis.ts', (name, abi) => {
  const compiled = new Map(loadArtifact(name).abi.map((item) => [key(item), normalise(item)]));

  it('matches the compiled artifact entry for entry', () => {
    for (const item of abi) expect([key(item), normalise(item)]).toEqual([key(item), compiled.get(key(item))]);
  });

  it('lists every event and error the contract can emit', () => {
    const listed = new Set(abi.map(key));
    const missing = [...compiled.keys()].filter((k) => (k.startsWith('event ') || k.startsWith('error ')) && !listed.has(k));
    expect(missing).toEqual([]);
  });
});
