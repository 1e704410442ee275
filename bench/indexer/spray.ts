import fs from 'node:fs';
import path from 'node:path';
import { parseAbi, type Address, type Hex } from 'viem';
import { REPO_ROOT } from '../../dev/contract-artifacts';
import { hardhatAccounts, localPublicClient, localWalletClient } from '../../shared/chain/clients';

const SOURCE = path.join(REPO_ROOT, 'shared/chain/contracts/test/EventSpray.sol');
const sprayAbi = parseAbi(['function spray(address pair, uint256 rounds, uint256 salt)']);

/** Compiles the EventSpray test helper with solc-js (a few seconds). */
function compileSpray(): Hex {
  const solc = require('solc') as { compile(input: string): string };
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'EventSpray.sol': { content: fs.readFileSync(SOURCE, 'utf8') } },
        settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { EventSpray: ['evm.bytecode.object'] } } },
      }),
    ),
  ) as { errors?: { severity: string; formattedMessage: string }[]; contracts: Record<string, Record<string, { evm: { bytecode: { object: string } } }>> };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  return `0x${out.contracts['EventSpray.sol'].EventSpray.evm.bytecode.object}`;
}

/** Deploys the EventSpray helper from Hardhat account #1; `once` then emits one round (4 pair events) in one block, and answers that block. */
export async function deploySpray(rpcUrl: string) {
  const account = hardhatAccounts(2)[1];
  const client = localPublicClient(rpcUrl);
  const wallet = localWalletClient(rpcUrl, account);
  const deployHash = await wallet.deployContract({ abi: sprayAbi, bytecode: compileSpray() });
  const spray = (await client.waitForTransactionReceipt({ hash: deployHash })).contractAddress!;
  let salt = 1_000_000n;
  return {
    spray,
    client,
    wallet,
    async once(pair: Address): Promise<number> {
      const hash = await wallet.writeContract({ address: spray, abi: sprayAbi, functionName: 'spray', args: [pair, 1n, salt++], gas: 1_000_000n });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 5 });
      if (receipt.status !== 'success') throw new Error(`spray transaction ${hash} reverted`);
      return Number(receipt.blockNumber);
    },
  };
}

/**
 * Emits at least `events` pair events on the node: EventSpray rounds of 4 events, `roundsPerTx`
 * rounds per transaction, transactions sent back to back and mined one per block.
 */
export async function sprayEvents(rpcUrl: string, pair: Address, events: number, roundsPerTx: number): Promise<{ txs: number; events: number }> {
  const { spray, client, wallet } = await deploySpray(rpcUrl);
  const rounds = Math.ceil(events / 4);
  let sent = 0;
  let txs = 0;
  while (sent < rounds) {
    const n = Math.min(roundsPerTx, rounds - sent);
    const hash = await wallet.writeContract({ address: spray, abi: sprayAbi, functionName: 'spray', args: [pair, BigInt(n), BigInt(sent)], gas: 29_000_000n });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`spray transaction ${hash} reverted`);
    sent += n;
    txs++;
  }
  return { txs, events: rounds * 4 };
}
