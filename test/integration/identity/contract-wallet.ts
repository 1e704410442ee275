import { getAddress, type Address } from 'viem';
import { compileContracts } from '../../../dev/contract-artifacts';
import type { TestChain } from '../../support/chain';

/**
 * A minimal ERC-1271 smart-contract wallet: a signature is valid when it recovers to the
 * wallet's owner. Compiled with the project's solc-js settings at test time.
 */
const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

contract OwnedWallet {
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata sig) external view returns (bytes4) {
        if (sig.length != 65) return 0xffffffff;
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly {
            r := calldataload(sig.offset)
            s := calldataload(add(sig.offset, 32))
            v := byte(0, calldataload(add(sig.offset, 64)))
        }
        return ecrecover(hash, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}
`;

/** Deploys an OwnedWallet for `owner` from Hardhat account `from`; returns its checksummed address. */
export async function deployContractWallet(chain: TestChain, owner: Address, from = 1): Promise<Address> {
  const artifact = compileContracts({ 'OwnedWallet.sol': SOURCE }).get('OwnedWallet');
  if (!artifact) throw new Error('OwnedWallet did not compile');
  const hash = await chain.wallets[from].deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args: [owner] });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying OwnedWallet failed in ${hash}`);
  return getAddress(receipt.contractAddress);
}
