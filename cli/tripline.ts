// The `tripline` command line: `npm run tripline -- <command> [options]` in a
// clone, `tripline <command>` from the npm package (scripts/pack.mjs).
// Each command lives in cli/commands/<name>.ts and returns its exit code.
// First of all, a one-shot command's V8 settings: this may restart the
// process with them (cli/engine-flags.ts).
import './engine-flags';
import { keepNewFilesPrivate } from '@/lib/platform/private-files';
import { CLI } from './args';

// Before any command touches the data folder: what it creates there (the
// embedded database's files, keys, a backup) is the user's alone (lib/platform/private-files.ts).
keepNewFilesPrivate();

type Command = { run: (args: string[]) => Promise<number> };

// Each command's one-line summary lives here, beside its loader, so --help
// lists them without importing every command (and Prisma with them).
const commands: Record<string, { summary: string; load: () => Promise<Command> }> = {
  start: { summary: 'Serve Tripline (the prebuilt app of the npm package; npm start in a clone)', load: () => import('./commands/start') },
  setup: { summary: 'Create an account and a factory it administers', load: () => import('./commands/setup') },
  token: { summary: 'Create a personal API token', load: () => import('./commands/token') },
  user: { summary: 'Create, list, disable and enable accounts; grant instance admin', load: () => import('./commands/user') },
  member: { summary: 'Add an account to a factory with a role', load: () => import('./commands/member') },
  webhook: { summary: 'List, create, rotate, enable, disable and delete webhooks; connect them to their sender', load: () => import('./commands/webhook') },
  automation: { summary: 'List and show automations; set and clear their run control', load: () => import('./commands/automation') },
  replay: { summary: 'Replay many deliveries at once: preview, start, follow and cancel a job', load: () => import('./commands/replay') },
  secret: { summary: 'List, set and delete team secrets', load: () => import('./commands/secret') },
  migrate: { summary: 'Apply, inspect and create database migrations', load: () => import('./commands/migrate') },
  worker: { summary: 'Execute queued automation runs', load: () => import('./commands/worker') },
  run: { summary: 'Cancel an automation run', load: () => import('./commands/run') },
  backup: { summary: 'Back up the embedded database (while the server runs or not)', load: () => import('./commands/backup') },
  restore: { summary: 'Restore the embedded database from a backup (server stopped)', load: () => import('./commands/restore') },
  factory: { summary: 'List factories; choose where one keeps its webhook definitions', load: () => import('./commands/factory') },
  validate: { summary: 'Check webhook definition files offline', load: () => import('./commands/definitions').then((m) => m.validate) },
  plan: { summary: 'Show what applying definition files would change', load: () => import('./commands/definitions').then((m) => m.plan) },
  apply: { summary: 'Apply definition files to a managed factory', load: () => import('./commands/definitions').then((m) => m.apply) },
  listen: { summary: "Forward a webhook's deliveries from a server to a local URL", load: () => import('./commands/listen') },
};

function usage(): string {
  return [
    `Usage: ${CLI} <command> [options]`,
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, { summary }]) => `  ${name.padEnd(12)}${summary}`),
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
  const command = commands[name];
  if (!command) {
    console.error(`Unknown command "${name}".\n\n${usage()}`);
    return 2;
  }
  return (await command.load()).run(args);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
