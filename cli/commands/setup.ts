import { verifyPassword } from '@/lib/platform/crypto/password';
import { createFactory } from '@/lib/domain/factories/service';
import { AppError } from '@/lib/platform/http/errors';
import { createUser } from '@/lib/domain/users/service';
import { CLI, parseOptions, readStdin, required } from '../args';
import { withDatabase } from '../database';
import { runCommand } from '../run-command';

const usage = `Usage: ${CLI} setup --email <email> (--password <password> | --password-stdin) --factory <slug>
                                  [--name <your name>] [--factory-name <name>]

Creates the account (or reuses it when the password matches) and the factory
with the account as its admin. Running it again with the same values changes
nothing, so scripts can call it safely. The first account of an instance is
its instance admin; a later account creates a factory only when
TRIPLINE_FACTORY_CREATION allows it (default: instance admins only).`;

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values } = parseOptions(args, {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      factory: { type: 'string' },
      name: { type: 'string' },
      'factory-name': { type: 'string' },
    });
    const email = required(values.email, 'email').trim().toLowerCase();
    const password = values['password-stdin'] ? await readStdin() : required(values.password, 'password');
    const slug = required(values.factory, 'factory');
    const factoryName = values['factory-name'] ?? slug;

    return withDatabase(async ({ prisma }) => {
      let user = await prisma.user.findUnique({ where: { email } });
      if (user) {
        if (!(await verifyPassword(user.passwordHash, password))) {
          throw new AppError('conflict', `An account for ${email} exists with a different password`);
        }
        console.log(`Account ${email} already exists`);
      } else {
        const created = await createUser({ email, password, name: values.name }, prisma);
        user = await prisma.user.findUniqueOrThrow({ where: { id: created.id } });
        console.log(`Created account ${email}`);
      }
      const factory = await prisma.factory.findUnique({
        where: { slug },
        select: { name: true, memberships: { where: { userId: user.id }, select: { role: true } } },
      });
      if (factory) {
        if (factory.memberships[0]?.role !== 'admin') {
          throw new AppError('conflict', `The factory "${slug}" exists and ${email} is not its admin`);
        }
        console.log(`Factory ${slug} already exists with ${email} as admin`);
      } else {
        await createFactory(user.id, { slug, name: factoryName }, prisma).catch((error: unknown) => {
          if (error instanceof AppError && error.code === 'forbidden') {
            throw new AppError(
              'forbidden',
              `${email} is not an instance admin, and only instance admins create factories (TRIPLINE_FACTORY_CREATION=admins). ` +
                `Grant it with \`tripline user admin --email ${email} --grant\`, or set TRIPLINE_FACTORY_CREATION=everyone.`,
            );
          }
          throw error;
        });
        console.log(`Created factory ${slug} with ${email} as admin`);
      }
      return 0;
    });
  });
}
