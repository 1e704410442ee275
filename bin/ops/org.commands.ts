import { OrganizationService } from '../../shared/identity';
import { requireFlag, type OpsCommand } from './command';

/** Organizations are created by operators; the API only manages keys and the admin role inside them. */
export const orgCommands: OpsCommand[] = [
  {
    name: 'org:create',
    usage: 'org:create --kind maker|taker --name NAME --owner ADDRESS',
    summary: 'create a maker or taker organization; ADDRESS becomes its owner',
    async run(ctx, args) {
      const input = { kind: requireFlag(args, 'kind'), name: requireFlag(args, 'name'), owner: requireFlag(args, 'owner') };
      ctx.print(await new OrganizationService(ctx.db).create(input));
    },
  },
  {
    name: 'org:add-member',
    usage: 'org:add-member --org ID --address ADDRESS --role admin|owner|manager|member',
    summary: 'add a wallet to an organization with a role',
    async run(ctx, args) {
      const input = { organization_id: requireFlag(args, 'org'), address: requireFlag(args, 'address'), role: requireFlag(args, 'role') };
      ctx.print(await new OrganizationService(ctx.db).addMember(input));
    },
  },
  {
    name: 'org:list',
    usage: 'org:list',
    summary: 'print every organization with its members and roles',
    async run(ctx) {
      ctx.print(await new OrganizationService(ctx.db).list());
    },
  },
];
