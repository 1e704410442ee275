const { task } = require('hardhat/config');
const { TASK_COMPILE } = require('hardhat/builtin-tasks/task-names');

/**
 * Hardhat 2 is used only as a local JSON-RPC node (`hardhat node`). Contracts are compiled by
 * solc-js (dev/build-contracts.ts, dev/contract-artifacts.ts), so there is no `solidity`
 * section and the compile task is disabled: Hardhat must never download a compiler. Its own
 * scratch directories live under cache/ (git-ignored).
 */
task(TASK_COMPILE, 'Disabled: contracts are compiled with solc-js').setAction(async () => {
  throw new Error('Hardhat does not compile in this project; run `npm run contracts:build` (solc-js) instead');
});

module.exports = {
  defaultNetwork: 'hardhat',
  networks: {
    hardhat: {
      chainId: 31337,
      // Cancun matches the EVM version the contracts are compiled for.
      hardfork: 'cancun',
      mining: { auto: true, interval: 0 },
      // Keep block time on the wall clock. Automine otherwise gives a block that comes within the
      // same second as its parent the parent's timestamp + 1, so a burst of transactions (deploy,
      // a demo) pushes the chain ahead of real time for good: 34 s after the demos, enough for
      // the API's exclusive fills (wall-clock expiry) to revert FillExpired. With this, a block
      // takes the wall-clock second even when its parent has it too (docs/DUTCH.md, "Time").
      allowBlocksWithSameTimestamp: true,
    },
  },
  paths: {
    sources: './shared/chain/contracts',
    cache: './cache/hardhat',
    artifacts: './cache/hardhat-artifacts',
  },
};
