import { automationJson } from '@/lib/domain/automations/json';
import { getAutomation, listAutomations, updateAutomation, type AutomationView } from '@/lib/domain/automations/service';
import { describeRunControl, parsePeriod } from '@/lib/domain/run-control/describe';
import { CLI, parseOptions, required, UsageError } from '../args';
import { withDatabase } from '../database';
import { factoryIdOrThrow } from '../factory';
import { runCommand } from '../run-command';

const usage = `Usage: ${CLI} automation <subcommand> --factory <slug> [options]

  list                               id, name, enabled, triggers and run control of each
  show --id <id>                     the automation as JSON, as the API's GET gives it
  run-control --id <id> --json '<json>'
                                     replaces run control with the settings the API takes
  run-control --id <id> [--key <part>]... [--concurrency <n>]
              [--when-full queue-newest|queue-all|cancel-running|skip] [--queue-limit <n>]
              [--debounce <period>] [--max-wait <period>]
              [--throttle <n>/<period>] [--throttle-queue <n>] | [--rate-limit <n>/<period>]
                                     replaces run control with these settings
  run-control --id <id> --clear      no run control: every matching delivery starts a run at once

A key part is a payload path (pull_request.number), $event or $header.<name>;
a period is seconds (90) or 90s, 5m, 1h. docs/automations.md, Run control,
explains each setting.`;

type Values = {
  json?: string;
  clear?: boolean;
  key?: string[];
  concurrency?: string;
  'when-full'?: string;
  'queue-limit'?: string;
  debounce?: string;
  'max-wait'?: string;
  throttle?: string;
  'throttle-queue'?: string;
  'rate-limit'?: string;
};

const SETTING_FLAGS = ['key', 'concurrency', 'when-full', 'queue-limit', 'debounce', 'max-wait', 'throttle', 'throttle-queue', 'rate-limit'] as const;

// A number as typed; anything else goes to the schema as it is, to be refused there with its message.
const count = (text: string | undefined) => (text === undefined ? undefined : /^\d+$/.test(text) ? Number(text) : text);

/** "10/1m": a limit per period. */
function pace(flag: string, text: string): { limit: unknown; periodSeconds: unknown } {
  const match = /^\s*([^/]+)\/([^/]+)$/.exec(text);
  if (!match) throw new UsageError(`--${flag} is a number of runs per period, e.g. 10/1m`);
  return { limit: count(match[1]!.trim()), periodSeconds: parsePeriod(match[2]!) };
}

/** The settings the flags write (the service validates them); null clears; undefined: none given. */
function runControlOption(values: Values): unknown {
  const given = SETTING_FLAGS.filter((flag) => values[flag] !== undefined);
  const forms = [values.json !== undefined, values.clear === true, given.length > 0].filter(Boolean).length;
  if (forms > 1) throw new UsageError('Give --json, --clear or the setting flags, one of them');
  if (values.clear) return null;
  if (values.json !== undefined) {
    try {
      return JSON.parse(values.json) as unknown;
    } catch {
      throw new UsageError('--json is not valid JSON');
    }
  }
  if (given.length === 0) throw new UsageError('Give --json, --clear or the setting flags');
  const concurrency =
    values.concurrency !== undefined || values['when-full'] !== undefined || values['queue-limit'] !== undefined
      ? { limit: count(values.concurrency), whenFull: values['when-full'], queueLimit: count(values['queue-limit']) }
      : undefined;
  const debounce =
    values.debounce !== undefined || values['max-wait'] !== undefined
      ? { periodSeconds: values.debounce === undefined ? undefined : parsePeriod(values.debounce), maxWaitSeconds: values['max-wait'] === undefined ? undefined : parsePeriod(values['max-wait']) }
      : undefined;
  const throttle =
    values.throttle !== undefined || values['throttle-queue'] !== undefined
      ? { ...(values.throttle === undefined ? { limit: undefined, periodSeconds: undefined } : pace('throttle', values.throttle)), queueLimit: count(values['throttle-queue']) }
      : undefined;
  const rateLimit = values['rate-limit'] === undefined ? undefined : pace('rate-limit', values['rate-limit']);
  // JSON round trip: a setting not given is left out, as the API's body would leave it.
  return JSON.parse(JSON.stringify({ key: values.key, concurrency, debounce, throttle, rateLimit })) as unknown;
}

const describe = (automation: AutomationView) => (automation.runControl ? describeRunControl(automation.runControl) : 'no run control');

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values, positionals } = parseOptions(args, {
      factory: { type: 'string' },
      id: { type: 'string' },
      json: { type: 'string' },
      clear: { type: 'boolean' },
      key: { type: 'string', multiple: true },
      concurrency: { type: 'string' },
      'when-full': { type: 'string' },
      'queue-limit': { type: 'string' },
      debounce: { type: 'string' },
      'max-wait': { type: 'string' },
      throttle: { type: 'string' },
      'throttle-queue': { type: 'string' },
      'rate-limit': { type: 'string' },
    });
    const subcommand = positionals[0];
    const slug = required(values.factory, 'factory');
    const runControl = subcommand === 'run-control' ? runControlOption(values) : undefined;
    return withDatabase(async (database) => {
      const factoryId = await factoryIdOrThrow(database, slug);
      const db = database.prisma;
      switch (subcommand) {
        case 'list': {
          // A factory has at most 100 automations: one page of the largest size holds them all.
          for (const a of (await listAutomations(factoryId, { limit: 100 }, db)).automations) {
            console.log([a.id, a.name, a.enabled ? 'enabled' : 'disabled', `${a.triggers.length} trigger${a.triggers.length === 1 ? '' : 's'}`, describe(a)].join('\t'));
          }
          return 0;
        }
        case 'show': {
          const automation = await getAutomation(factoryId, required(values.id, 'id'), db);
          console.log(JSON.stringify(automationJson(automation), null, 2));
          return 0;
        }
        case 'run-control': {
          const automation = await updateAutomation(factoryId, required(values.id, 'id'), { runControl: runControl as never }, db);
          console.log(`${automation.name}: ${describe(automation)}`);
          return 0;
        }
        default:
          throw new UsageError(subcommand ? `Unknown subcommand "${subcommand}"` : 'Missing subcommand');
      }
    });
  });
}
