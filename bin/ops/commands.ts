import { chainCommands } from './chain.commands';
import type { OpsCommand } from './command';
import { indexerCommands } from './indexer.commands';
import { migrateCommands } from './migrate.commands';
import { networksCommands } from './networks.commands';
import { orgCommands } from './org.commands';

/** Every operator command; each concern contributes its own list. */
export const COMMANDS: OpsCommand[] = [...migrateCommands, ...networksCommands, ...orgCommands, ...chainCommands, ...indexerCommands];
