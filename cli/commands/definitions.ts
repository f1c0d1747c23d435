import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { applyDefinitions, type ConnectionOutcome } from '@/lib/domain/definitions/apply';
import { parseDefinitionFiles } from '@/lib/domain/definitions/parse';
import { describeAction, planDefinitions, planDigest, type Plan } from '@/lib/domain/definitions/plan';
import { formatProblem, planDigestSchema, type DefinitionFiles, type DefinitionProblem } from '@/lib/domain/definitions/schemas';
import { WEBHOOKS_DIR } from '@/lib/domain/webhooks/definition-file';
import { CLI, parseOptions, required, UsageError } from '../args';
import { withDatabase } from '../database';
import { factoryIdOrThrow } from '../factory';
import { runCommand } from '../run-command';

// Factory as code for people and pipelines: validate, plan and apply a folder
// that holds webhooks/<name>.yaml. Exit codes: 0 success, 1 the files have
// problems (or the apply was refused), 2 wrong usage; `plan --exit-code`
// exits 3 when the files are valid and would change something.

export const CHANGES_PENDING = 3;

const exitCodes = `Exit codes: 0 success, 1 problems in the files (nothing was changed) or refused, 2 wrong usage.`;

/** Every file under <dir>/webhooks, keyed by its path relative to <dir> with forward slashes. */
export function readDefinitionFolder(dir: string): DefinitionFiles {
  const root = path.resolve(dir);
  const webhooks = path.join(root, WEBHOOKS_DIR);
  if (!existsSync(webhooks) || !statSync(webhooks).isDirectory()) {
    throw new UsageError(
      `${dir} has no ${WEBHOOKS_DIR}/ folder. Pass the folder that contains ${WEBHOOKS_DIR}/ (a repository's root, for example).`,
    );
  }
  const files: DefinitionFiles = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[path.relative(root, full).split(path.sep).join('/')] = readFileSync(full, 'utf8');
    }
  };
  walk(webhooks);
  return files;
}

export function printProblems(problems: DefinitionProblem[]): void {
  console.error(`${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}:`);
  for (const problem of problems) console.error(`  ${formatProblem(problem)}`);
}

const symbols = { create: '+', update: '~', delete: '-' } as const;

export function printPlan(slug: string, plan: Plan): void {
  if (plan.actions.length === 0) console.log(`${slug}: no changes (${plan.unchanged.length} unchanged)`);
  else {
    console.log(`${slug}: ${plan.actions.length} ${plan.actions.length === 1 ? 'change' : 'changes'}, ${plan.unchanged.length} unchanged`);
    for (const action of plan.actions) console.log(`  ${symbols[action.action]} ${describeAction(action)}`);
  }
}

/** An apply's connection steps, each on a line; false when one failed (the webhooks applied all the same). */
export function printConnections(connections: ConnectionOutcome[]): boolean {
  for (const c of connections) {
    if (!c.ok) console.error(`could not ${c.step} ${c.name} ${c.uid}: ${c.message}`);
    else console.log(c.step === 'connect' ? `connected ${c.name}\t${c.uid}\t${c.hookUrl ?? ''}` : `disconnected ${c.name}\t${c.uid} (the provider's hook stays)`);
  }
  if (connections.every((c) => c.ok)) return true;
  console.error('The webhooks applied; the connection steps that failed are tried again at the next apply (`plan` shows them).');
  return false;
}

/** The --plan option: the digest a plan printed (an apply given it refuses any other plan). */
export function planOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!planDigestSchema.safeParse(value).success) throw new UsageError('--plan must be the digest a plan printed (64 hex digits)');
  return value;
}

/** The line after a valid plan: its digest, for an apply that must apply exactly this plan. */
export function printDigest(plan: Plan, apply: string): void {
  console.log(`plan digest ${planDigest(plan)}: ${apply} --plan ${planDigest(plan)} applies exactly this plan, or nothing`);
}

function folderArgument(positionals: string[], index: number): string {
  const dir = positionals[index];
  if (!dir) throw new UsageError('Missing the folder that contains webhooks/');
  return dir;
}

export const validate = {
  run: (args: string[]) =>
    runCommand(`Usage: ${CLI} validate <dir>\n\nChecks <dir>/webhooks/*.yaml without a database.\n${exitCodes}`, args, async () => {
      const { positionals } = parseOptions(args, {});
      const { definitions, problems } = parseDefinitionFiles(readDefinitionFolder(folderArgument(positionals, 0)));
      if (problems.length > 0) {
        printProblems(problems);
        return 1;
      }
      console.log(`${definitions.length} ${definitions.length === 1 ? 'definition is' : 'definitions are'} valid`);
      return 0;
    }),
};

export const plan = {
  run: (args: string[]) =>
    runCommand(
      `Usage: ${CLI} plan --factory <slug> [--exit-code] <dir>\n\nPrints the creates, updates and deletes an apply of <dir>/webhooks would make, and every problem; changes nothing.\n${exitCodes}\nWith --exit-code, valid files that would change something exit ${CHANGES_PENDING}.`,
      args,
      async () => {
        const { values, positionals } = parseOptions(args, { factory: { type: 'string' }, 'exit-code': { type: 'boolean' } });
        const slug = required(values.factory, 'factory');
        const files = readDefinitionFolder(folderArgument(positionals, 0));
        return withDatabase(async (database) => {
          const result = await planDefinitions(await factoryIdOrThrow(database, slug), files, database.prisma);
          printPlan(slug, result);
          if (result.problems.length > 0) {
            printProblems(result.problems);
            return 1;
          }
          printDigest(result, `${CLI} apply --factory ${slug} ${positionals[0]}`);
          return values['exit-code'] && result.actions.length > 0 ? CHANGES_PENDING : 0;
        });
      },
    ),
};

export const apply = {
  run: (args: string[]) =>
    runCommand(
      `Usage: ${CLI} apply --factory <slug> [--plan <digest>] <dir>\n\nMakes the factory's webhooks what <dir>/webhooks defines, all or nothing, and prints the UIDs and ingress URLs of created webhooks. The factory must be managed (its settings); a repository-backed factory applies its branch. With --plan (the digest \`plan\` printed), applies only if the plan is still that one: a change to the factory since (a webhook, a team secret) refuses it, and nothing is applied.\n${exitCodes}`,
      args,
      async () => {
        const { values, positionals } = parseOptions(args, { factory: { type: 'string' }, plan: { type: 'string' } });
        const slug = required(values.factory, 'factory');
        const expectedPlan = planOption(values.plan);
        const files = readDefinitionFolder(folderArgument(positionals, 0));
        return withDatabase(async (database) => {
          const factoryId = await factoryIdOrThrow(database, slug);
          const outcome = await applyDefinitions(factoryId, files, { source: 'managed', expectedPlan, db: database.prisma });
          printPlan(slug, outcome.plan);
          if (!outcome.ok) {
            printProblems(outcome.plan.problems);
            console.error('Nothing was applied.');
            return 1;
          }
          for (const created of outcome.created) console.log(`created ${created.name}\t${created.uid}\t${created.ingressUrl}`);
          console.log(outcome.changed ? 'applied' : 'applied: nothing to change');
          return printConnections(outcome.connections) ? 0 : 1;
        });
      },
    ),
};
