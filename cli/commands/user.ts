import { getUserIdByEmail, listUsers, setInstanceAdmin, setUserDisabled } from '@/lib/domain/instance/service';
import { createUser } from '@/lib/domain/users/service';
import { CLI, parseOptions, readStdin, required, UsageError } from '../args';
import { withDatabase } from '../database';
import { runCommand } from '../run-command';

const usage = `Usage: ${CLI} user <subcommand> [options]

  create --email <email> (--password <password> | --password-stdin) [--name <name>]
                                   create an account (works whether or not sign-up is open)
  list                             every account: email, instance admin, disabled, factories
  disable --email <email>          sign the account out everywhere, refuse its sign-ins and API tokens
  enable --email <email>           let a disabled account sign in again
  admin --email <email> (--grant | --revoke)
                                   make the account an instance admin, or stop it being one

The instance always keeps an enabled instance admin: disabling or revoking the last one is refused.`;

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values, positionals } = parseOptions(args, {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      name: { type: 'string' },
      grant: { type: 'boolean' },
      revoke: { type: 'boolean' },
    });
    const subcommand = positionals[0];
    switch (subcommand) {
      case 'create': {
        const email = required(values.email, 'email');
        const password = values['password-stdin'] ? await readStdin() : required(values.password, 'password');
        return withDatabase(async ({ prisma }) => {
          const user = await createUser({ email, password, name: values.name }, prisma);
          console.log(`Created account ${user.email}${user.instanceAdmin ? ' (the first account: instance admin)' : ''}`);
          return 0;
        });
      }
      case 'list':
        return withDatabase(async ({ prisma }) => {
          const users = await listUsers(prisma);
          const width = Math.max(5, ...users.map((u) => u.email.length));
          console.log(`${'EMAIL'.padEnd(width)}  INSTANCE ADMIN  STATUS    FACTORIES  CREATED`);
          for (const u of users) {
            console.log(
              `${u.email.padEnd(width)}  ${(u.instanceAdmin ? 'yes' : 'no').padEnd(14)}  ${(u.disabledAt ? 'disabled' : 'active').padEnd(8)}  ${String(u.factories).padEnd(9)}  ${u.createdAt.toISOString().slice(0, 10)}`,
            );
          }
          return 0;
        });
      case 'disable':
      case 'enable': {
        const email = required(values.email, 'email');
        return withDatabase(async ({ prisma }) => {
          const userId = await getUserIdByEmail(email, prisma);
          await setUserDisabled(null, { userId, disabled: subcommand === 'disable' }, prisma);
          console.log(subcommand === 'disable' ? `Disabled ${email}: signed out everywhere; sign-ins and API tokens are refused` : `Enabled ${email}`);
          return 0;
        });
      }
      case 'admin': {
        const email = required(values.email, 'email');
        if (Boolean(values.grant) === Boolean(values.revoke)) throw new UsageError('Give one of --grant or --revoke');
        return withDatabase(async ({ prisma }) => {
          const userId = await getUserIdByEmail(email, prisma);
          await setInstanceAdmin({ userId, instanceAdmin: Boolean(values.grant) }, prisma);
          console.log(values.grant ? `${email} is an instance admin` : `${email} is no longer an instance admin`);
          return 0;
        });
      }
      default:
        throw new UsageError(subcommand ? `Unknown subcommand "${subcommand}"` : 'Missing subcommand');
    }
  });
}
