// The `tripline` command line: `npm run tripline -- <command> [options]`.
// Each command lives in cli/commands/<name>.ts and returns its exit code.

type Command = { summary: string; run: (args: string[]) => Promise<number> };

const commands: Record<string, () => Promise<Command>> = {
  setup: () => import('./commands/setup'),
  token: () => import('./commands/token'),
  user: () => import('./commands/user'),
  member: () => import('./commands/member'),
  webhook: () => import('./commands/webhook'),
  secret: () => import('./commands/secret'),
  migrate: () => import('./commands/migrate'),
  worker: () => import('./commands/worker'),
  backup: () => import('./commands/backup'),
  restore: () => import('./commands/restore'),
  factory: () => import('./commands/factory'),
  validate: () => import('./commands/definitions').then((m) => m.validate),
  plan: () => import('./commands/definitions').then((m) => m.plan),
  apply: () => import('./commands/definitions').then((m) => m.apply),
};

function usage(): string {
  return [
    'Usage: npm run tripline -- <command> [options]',
    '',
    'Commands:',
    '  setup     Create an account and a factory it administers',
    '  token     Create a personal API token',
    '  user      Create, list, disable and enable accounts; grant instance admin',
    '  member    Add an account to a factory with a role',
    '  webhook   List, create, rotate, enable, disable and delete webhooks',
    '  secret    List, set and delete team secrets',
    '  migrate   Apply, inspect and create database migrations',
    '  worker    Execute queued automation runs',
    '  backup    Back up the embedded database (while the server runs or not)',
    '  restore   Restore the embedded database from a backup (server stopped)',
    '  factory   List factories; choose where one keeps its webhook definitions',
    '  validate  Check webhook definition files offline',
    '  plan      Show what applying definition files would change',
    '  apply     Apply definition files to a managed factory',
    '',
    'Run a command with --help for its options.',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name ? 0 : 2;
  }
  const load = commands[name];
  if (!load) {
    console.error(`Unknown command "${name}".\n\n${usage()}`);
    return 2;
  }
  const command = await load();
  return command.run(args);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
