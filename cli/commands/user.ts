import { createUser } from '@/lib/users/service';
import { parseOptions, readStdin, required } from '../args';
import { withDatabase } from '../database';
import { runCommand } from '../run-command';

export const summary = 'Create an account that admins can then add to factories';

const usage = `Usage: npm run tripline -- user create --email <email> (--password <password> | --password-stdin) [--name <name>]`;

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values, positionals } = parseOptions(args, {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      name: { type: 'string' },
    });
    if (positionals[0] !== 'create') {
      console.error(usage);
      return 2;
    }
    const email = required(values.email, 'email');
    const password = values['password-stdin'] ? await readStdin() : required(values.password, 'password');
    return withDatabase(async ({ prisma }) => {
      const user = await createUser({ email, password, name: values.name }, prisma);
      console.log(`Created account ${user.email}`);
      return 0;
    });
  });
}
