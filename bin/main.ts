import 'reflect-metadata';
import { createApp } from '../api/app';
import { listen } from '../api/server';
import { announceDevelopmentDashboard } from '../api/ops/development-dashboard';
import { socketOnlyApp, startSocket } from '../socket';
import { configFromProcess } from '../shared/platform/config';
import { checkDependencies } from '../shared/platform/health';
import type { Logger } from '../shared/platform/logging';
import { indexerStartChecks, startIndexer } from '../indexer';
import { startWorkers } from '../workers';
import { QUEUE_NAMES } from '../workers/job-catalog';
import { developmentDashboardToken, registeredServiceSigner, registeredSessionSecret } from '../shared/networks';
import { ecdsaBackend, keccakBackend } from '../shared/protocol';
import { guardRedis, openInfra, processLogger } from './boot';
import { RedisEvictionRefused } from '../shared/platform/redis';
import { bootstrapLogger, crashBeforeStart, logProcessWarnings, reportStartFailure } from './process-output';

/** The process's logger: the configured one once it exists, until then one at info level. */
let logger: Logger = bootstrapLogger();
logProcessWarnings(() => logger);
const beforeStart = crashBeforeStart(() => logger);

/** The one entry point: starts the roles named in ROLES in this process. */
async function main(): Promise<void> {
  const config = configFromProcess();
  // What the start checks inside openInfra log, and why they failed, is logged as configured too.
  logger = processLogger(config);
  const infra = await openInfra(config, { migrate: config.MIGRATE_ON_START, name: `options-rfq:${config.ROLES.join('+')}` });
  logger = infra.logger;
  const { lifecycle } = infra;
  // Refuse an evicting Redis; start watching the Redis data epoch (docs/FAULTS.md, "Redis data loss").
  try {
    await guardRedis(infra, `options-rfq:${config.ROLES.join('+')}`);
  } catch (err) {
    if (!(err instanceof RedisEvictionRefused)) throw err;
    logger.fatal(
      { redis: err.node, maxmemory_policy: err.policy, fix: 'CONFIG SET maxmemory-policy noeviction', override: 'REDIS_ALLOW_EVICTION=true' },
      err.message,
    );
    process.exit(78);
  }
  lifecycle.installSignalHandlers();
  // Before anything listens: from here on a crash drains through the lifecycle (docs/SECURITY.md).
  beforeStart();
  lifecycle.installCrashHandlers();
  // DEVCHAIN=auto and an empty networks table: run the local Hardhat chain inside this process. dev/ is
  // imported only then: a production install has no hardhat or solc (devDependencies).
  if (config.DEVCHAIN !== 'off') {
    const { ensureDevchain } = await import('../dev/devchain');
    await ensureDevchain(infra);
  }
  const roles = new Set(config.ROLES);
  // The roles that sign (Dutch awards, exclusive fills) build the signer now, against the networks
  // registered after the devchain step: without a usable key the process does not start (exit 78).
  if (roles.has('api') || roles.has('workers')) {
    // Without a usable key: a ConfigError, exit 78 (reportStartFailure).
    infra.serviceSigner = await registeredServiceSigner(config, infra.db);
    logger.info({ signer: infra.serviceSigner.address }, 'service signer ready');
  }
  // The roles that verify sessions: the public development JWT secret only where the development
  // signing key may sign (the same rule), else a random secret of this process (exit 78 in production).
  if (roles.has('api') || roles.has('socket')) {
    const session = await registeredSessionSecret(config, infra.db);
    infra.config = session.config;
    if (session.random) {
      logger.warn(
        "JWT_SECRET is unset and the public development secret may not be used here (not this machine's devchain): sessions use a random secret of this process, valid until it stops",
      );
    }
  }
  // The queue dashboard on this machine's devchain stack: a token of this process when none is set
  // (the signer rule again); production and real networks are unchanged: no token, no dashboard.
  let generatedDashboardToken: string | undefined;
  if (roles.has('api')) {
    const dashboard = await developmentDashboardToken(infra.config, infra.db);
    infra.config = dashboard.config;
    if (dashboard.generated) generatedDashboardToken = dashboard.config.OPS_DASHBOARD_TOKEN;
  }
  // A signal during start-up begins the drain; what is already open closes, nothing more opens.
  let told = false;
  const stopped = () => {
    if (lifecycle.shuttingDown && !told) logger.info('shutdown began during start-up: not starting the remaining roles');
    told ||= lifecycle.shuttingDown;
    return lifecycle.shuttingDown;
  };

  // The indexer needs each enabled network's RPC (the devchain's included, registered above).
  if (roles.has('indexer') && !stopped()) {
    await checkDependencies(await indexerStartChecks(infra.db, config), { timeoutSeconds: config.START_TIMEOUT_SECONDS, logger });
  }
  if (roles.has('workers') && !stopped()) await startWorkers(infra, lifecycle);
  if (roles.has('indexer') && !stopped()) await startIndexer(infra, lifecycle);
  if (stopped()) return;
  if (roles.has('api')) {
    const { app, ctx } = createApp({ ...infra, queueNames: QUEUE_NAMES });
    // The gate's checks from memory: subscribed before the first request; closed after the server.
    await ctx.gateMemory.start();
    lifecycle.onClose('gate memory', () => ctx.gateMemory.close());
    const server = await listen({ app, host: config.HOST, port: config.PORT, logger, lifecycle, name: 'api' });
    if (generatedDashboardToken !== undefined) announceDevelopmentDashboard(logger, server, generatedDashboardToken);
    if (roles.has('socket') && !stopped()) await startSocket(infra, server);
  } else if (roles.has('socket')) {
    const server = await listen({ app: socketOnlyApp(infra), host: config.HOST, port: config.PORT, logger, lifecycle, name: 'socket' });
    await startSocket(infra, server);
  }
  if (!lifecycle.shuttingDown) logger.info({ roles: config.ROLES, ecdsa: ecdsaBackend, keccak: keccakBackend }, 'started');
}

main().catch((err: unknown) => process.exit(reportStartFailure(err, logger)));
