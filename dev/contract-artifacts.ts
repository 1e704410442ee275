import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Abi, Hex } from 'viem';

/**
 * Compiled reference contracts. Sources live in shared/chain/contracts; artifacts (ABI +
 * bytecode JSON) in shared/chain/artifacts, which is git-ignored and rebuilt on demand: the
 * first `loadArtifact` after a source change compiles with solc-js and caches the result under
 * a hash of the sources and compiler settings, so a fresh clone needs no separate build step.
 * It drives solc (a devDependency), hence dev/: production code reads the ABIs it needs from
 * shared/chain/abis.ts, which a chain test holds equal to these artifacts.
 */

export const CONTRACT_NAMES = [
  'Mothership',
  'PairFactory',
  'OptionPair',
  'MockERC20',
  'BondVault',
  'PriceOracle',
  'LendingMarket',
  'AllowlistFillAuthority',
] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

export interface Artifact {
  contractName: string;
  sourceName: string;
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}

interface BuildInfo {
  sourcesHash: string;
  solcVersion: string;
  contracts: string[];
}

/** Cancun is the newest fork Hardhat 2's EDR and solc 0.8.30 agree on. */
export const COMPILER_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const;

const LOCK_STALE_MS = 5 * 60_000;

/** The repository root: the nearest ancestor holding the Solidity sources (works from dist/ too). */
function findRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'shared', 'chain', 'contracts'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`shared/chain/contracts not found above ${__dirname}`);
  }
}

export const REPO_ROOT = findRoot();
export const CONTRACTS_DIR = path.join(REPO_ROOT, 'shared', 'chain', 'contracts');
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'shared', 'chain', 'artifacts');
const BUILD_INFO = path.join(ARTIFACTS_DIR, 'build-info.json');
const LOCK = path.join(ARTIFACTS_DIR, '.compile.lock');

function readSources(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of fs
    .readdirSync(CONTRACTS_DIR)
    .filter((f) => f.endsWith('.sol'))
    .sort()) {
    out[file] = fs.readFileSync(path.join(CONTRACTS_DIR, file), 'utf8');
  }
  return out;
}

function solcVersion(): string {
  return (require('solc/package.json') as { version: string }).version;
}

/** sha-256 over compiler version, settings and every source file: the cache key. */
export function sourcesHash(sources: Record<string, string> = readSources()): string {
  const h = createHash('sha256');
  h.update(`solc ${solcVersion()}\n${JSON.stringify(COMPILER_SETTINGS)}\n`);
  for (const [file, content] of Object.entries(sources)) h.update(`${file}\n${content.length}\n${content}`);
  return h.digest('hex');
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
}

/** Compiles every source with solc-js; throws with solc's messages on any error. */
export function compileContracts(sources: Record<string, string> = readSources()): Map<string, Artifact> {
  // Loaded lazily: solc-js takes a few seconds to initialise and most processes never compile.
  const solc = require('solc') as { compile(input: string): string };
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([f, content]) => [f, { content }])),
    settings: COMPILER_SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const artifacts = new Map<string, Artifact>();
  for (const [sourceName, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [contractName, c] of Object.entries(contracts)) {
      if (artifacts.has(contractName)) throw new Error(`two contracts are named ${contractName}`);
      artifacts.set(contractName, {
        contractName,
        sourceName,
        abi: c.abi,
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
      });
    }
  }
  return artifacts;
}

function readBuildInfo(): BuildInfo | null {
  try {
    return JSON.parse(fs.readFileSync(BUILD_INFO, 'utf8')) as BuildInfo;
  } catch {
    return null;
  }
}

function isFresh(hash: string): boolean {
  const info = readBuildInfo();
  return info !== null && info.sourcesHash === hash && info.contracts.every((name) => fs.existsSync(path.join(ARTIFACTS_DIR, `${name}.json`)));
}

/** Write-then-rename so a concurrent reader never sees half a file. */
function writeAtomic(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in the lock file; 0 when unreadable, null when the lock is gone. */
function readLockHolder(): number | null {
  try {
    const pid = Number(fs.readFileSync(LOCK, 'utf8'));
    return Number.isInteger(pid) ? pid : 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Takes the compile lock, or returns false once another process has produced fresh artifacts.
 * Several jest workers may start on a fresh clone at once; only one of them compiles.
 */
function lockOrWaitForOther(hash: string): boolean {
  const started = Date.now();
  for (;;) {
    try {
      fs.writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (isFresh(hash)) return false;
    const holder = readLockHolder();
    if (holder === null) continue; // released between our attempt and the read
    const age = Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (holder <= 0 || !pidAlive(holder) || age > LOCK_STALE_MS) {
      fs.rmSync(LOCK, { force: true });
      continue;
    }
    if (Date.now() - started > LOCK_STALE_MS) throw new Error(`gave up waiting for ${LOCK} held by pid ${holder}`);
    sleepSync(200);
  }
}

/** Compiles and writes artifacts unless the cache matches the sources; returns whether it compiled. */
export function buildArtifacts(opts: { force?: boolean } = {}): { compiled: boolean; hash: string; contracts: string[] } {
  const sources = readSources();
  const hash = sourcesHash(sources);
  if (!opts.force && isFresh(hash)) return { compiled: false, hash, contracts: readBuildInfo()?.contracts ?? [] };
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  if (!lockOrWaitForOther(hash)) return { compiled: false, hash, contracts: readBuildInfo()?.contracts ?? [] };
  try {
    const artifacts = compileContracts(sources);
    for (const a of artifacts.values()) writeAtomic(path.join(ARTIFACTS_DIR, `${a.contractName}.json`), `${JSON.stringify(a, null, 2)}\n`);
    const info: BuildInfo = { sourcesHash: hash, solcVersion: solcVersion(), contracts: [...artifacts.keys()].sort() };
    writeAtomic(BUILD_INFO, `${JSON.stringify(info, null, 2)}\n`);
    return { compiled: true, hash, contracts: info.contracts };
  } finally {
    fs.rmSync(LOCK, { force: true });
  }
}

const loaded = new Map<string, Artifact>();
let checked = false;

/** The ABI and bytecode of a reference contract, compiling first if artifacts are missing or stale. */
export function loadArtifact(name: ContractName): Artifact {
  const cached = loaded.get(name);
  if (cached) return cached;
  if (!checked) {
    buildArtifacts();
    checked = true;
  }
  const file = path.join(ARTIFACTS_DIR, `${name}.json`);
  const artifact = JSON.parse(fs.readFileSync(file, 'utf8')) as Artifact;
  loaded.set(name, artifact);
  return artifact;
}
