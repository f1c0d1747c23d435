import { createApiToken } from '@/lib/domain/api-tokens/service';
import { AppError } from '@/lib/platform/http/errors';
import { CLI, parseOptions, required } from '../args';
import { withDatabase } from '../database';
import { runCommand } from '../run-command';

const usage = `Usage: ${CLI} token create --email <email> [--name <token name>]

Prints the new token alone on stdout, so a script can capture it:
  TOKEN=$(npm run --silent tripline -- token create --email you@example.com)
The token is shown once; only its hash is stored. Revoke it in the dashboard
under your user settings.`;

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values, positionals } = parseOptions(args, { email: { type: 'string' }, name: { type: 'string' } });
    if (positionals[0] !== 'create') {
      console.error(usage);
      return 2;
    }
    const email = required(values.email, 'email').trim().toLowerCase();
    return withDatabase(async ({ prisma }) => {
      const user = await prisma.user.findUnique({ where: { email }, select: { id: true } });
      if (!user) throw new AppError('not_found', `No account uses ${email}`);
      const { token } = await createApiToken(user.id, { name: values.name ?? 'CLI token' }, prisma);
      process.stdout.write(`${token}\n`);
      return 0;
    });
  });
}
