import 'reflect-metadata';
import { startAndRegisterDevchain } from './devchain';
import { configFromProcess, ConfigError } from '../shared/platform/config';
import { ensureDatabase } from '../shared/platform/db';
import { createDataSource } from '../shared/entities';

/**
 * `npm run devchain`: a Hardhat node on 127.0.0.1:DEVCHAIN_PORT with the reference contracts,
 * registered as network 31337 in DATABASE_URL's networks table. Runs until Ctrl-C; when a node with
 * our contracts already runs on the port, it only re-registers it and exits.
 */
async function main(): Promise<number> {
  const config = configFromProcess();
  if (config.DATABASE_CREATE_IF_MISSING) await ensureDatabase(config.DATABASE_URL);
  const db = createDataSource({ url: config.DATABASE_URL, poolSize: 2, applicationName: 'options-rfq:devchain' });
  await db.initialize();
  let chain;
  try {
    if (config.MIGRATE_ON_START) await db.runMigrations({ transaction: 'each' });
    chain = await startAndRegisterDevchain({ db, port: config.DEVCHAIN_PORT });
  } finally {
    await db.destroy();
  }
  const { rpcUrl, chainId, addresses, reused } = chain;
  process.stdout.write(`${JSON.stringify({ rpc_url: rpcUrl, chain_id: chainId, reused, addresses }, null, 2)}\n`);
  if (reused) return 0;
  process.stderr.write(`devchain running on ${rpcUrl}; Ctrl-C stops it\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await chain.stop();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    process.stderr.write(`devchain: ${(err as Error)?.message ?? String(err)}\n`);
    process.exit(1);
  },
);
