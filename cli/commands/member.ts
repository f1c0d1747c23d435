import { addMember } from '@/lib/domain/members/service';
import { AppError } from '@/lib/platform/http/errors';
import { CLI, parseOptions, required } from '../args';
import { withDatabase } from '../database';
import { runCommand } from '../run-command';

// The operator's tool: it says when no account uses the email (the dashboard
// and API invite instead, so they never reveal that).
const usage = `Usage: ${CLI} member add --factory <slug> --email <email> --role <admin|editor|viewer>`;

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values, positionals } = parseOptions(args, {
      factory: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
    });
    if (positionals[0] !== 'add') {
      console.error(usage);
      return 2;
    }
    const slug = required(values.factory, 'factory');
    const email = required(values.email, 'email');
    const role = required(values.role, 'role');
    return withDatabase(async ({ prisma }) => {
      const factory = await prisma.factory.findUnique({ where: { slug }, select: { id: true } });
      if (!factory) throw new AppError('not_found', `No factory has the slug "${slug}"`);
      const member = await addMember(factory.id, { email, role: role as never }, prisma);
      console.log(`Added ${member.email} to ${slug} as ${member.role}`);
      return 0;
    });
  });
}
