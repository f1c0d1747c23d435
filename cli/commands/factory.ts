import { connectRepository, previewRepository } from '@/lib/domain/definitions/repository';
import { planOption, printConnections, printDigest, printPlan, printProblems } from './definitions';
import { getDefinitionsStatus, setConfigSource } from '@/lib/domain/definitions/service';
import { formatProblem, repositorySettingsSchema } from '@/lib/domain/definitions/schemas';
import { parseRepositoryUrl } from '@/lib/domain/definitions/repository-url';
import { listAllFactories } from '@/lib/domain/instance/service';
import { CLI, parseOptions, readStdin, required, UsageError } from '../args';
import { withDatabase } from '../database';
import { factoryIdOrThrow } from '../factory';
import { runCommand } from '../run-command';

const usage = `Usage: ${CLI} factory <subcommand> --factory <slug> [options]

  list                                       every factory with its member and webhook counts (no --factory)
  status                                     the kind of factory, and for a repository what applied last
  use-dashboard                              webhooks are managed in the dashboard (the default)
  use-managed                                the service keeps definition files; the dashboard writes them
  use-repository (--repo <url|path> | --repo-stdin) [--branch main] [--yes | --commit <sha> [--plan <digest>]]
                                             the production branch of a git repository applies (now, and on every new commit);
                                             without --yes or --commit, prints what applying its newest commit would do (and
                                             the plan's digest) and changes nothing; --commit applies only if the branch is
                                             still at that commit, and --plan only if the plan is still the one printed;
                                             --repo-stdin reads the URL from standard input, so a credential in it never shows
                                             in the process list or the shell's history`;

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values, positionals } = parseOptions(args, {
      factory: { type: 'string' },
      repo: { type: 'string' },
      'repo-stdin': { type: 'boolean' },
      branch: { type: 'string' },
      yes: { type: 'boolean' },
      commit: { type: 'string' },
      plan: { type: 'string' },
    });
    const subcommand = positionals[0];
    if (subcommand === 'list') {
      return withDatabase(async ({ prisma }) => {
        const factories = await listAllFactories(prisma);
        const width = Math.max(4, ...factories.map((f) => f.slug.length));
        console.log(`${'SLUG'.padEnd(width)}  MEMBERS  WEBHOOKS  NAME`);
        for (const f of factories) console.log(`${f.slug.padEnd(width)}  ${String(f.members).padEnd(7)}  ${String(f.webhooks).padEnd(8)}  ${f.name}`);
        return 0;
      });
    }
    const slug = required(values.factory, 'factory');
    return withDatabase(async (database) => {
      const factoryId = await factoryIdOrThrow(database, slug);
      switch (subcommand) {
        case 'status': {
          const status = await getDefinitionsStatus(factoryId, database.prisma);
          console.log(`source: ${status.configSource}`);
          if (status.configSource === 'repository') {
            console.log(`repository: ${status.repoUrl} (branch ${status.repoBranch})${status.repoCredentialStored ? ', credential stored' : ''}`);
            console.log(`applied: ${status.appliedCommit ?? '-'} ${status.appliedAt?.toISOString() ?? ''}`);
            if (status.lastFailure) console.log(`last failure: ${status.lastFailure.message}`);
          }
          return 0;
        }
        case 'use-dashboard':
        case 'use-managed':
          await setConfigSource(factoryId, subcommand === 'use-managed' ? 'managed' : 'dashboard', database.prisma);
          console.log(`${slug}: ${subcommand === 'use-managed' ? 'managed definition files' : 'dashboard'}`);
          return 0;
        case 'use-repository': {
          if (values.repo !== undefined && values['repo-stdin']) throw new UsageError('Give --repo or --repo-stdin, not both');
          const url = values['repo-stdin'] ? (await readStdin()).trim() : required(values.repo, 'repo');
          const settings = repositorySettingsSchema.parse({ url, branch: values.branch });
          // A token alone (https://TOKEN@host/...) is a credential too: the same reading the server stores it by.
          if (!values['repo-stdin'] && parseRepositoryUrl(url).credential) {
            console.error('warning: the repository URL carries a credential, which every user of this machine could read in the process list while this command ran; pass the URL on standard input with --repo-stdin instead');
          }
          if (values.yes && values.commit) throw new UsageError('Give --yes or --commit, not both');
          if (values.plan !== undefined && !values.commit) throw new UsageError('--plan goes with --commit: the commit whose plan it is');
          const plan = planOption(values.plan);
          // The operator's own tool: every kind of location is allowed (TRIPLINE_REPOSITORY_ALLOW is for dashboard and API users).
          const operator = { kind: 'operator' } as const;
          if (!values.yes && !values.commit) {
            // The branch replaces the factory's webhooks (a webhook with no file is deleted): shown first, as the dashboard does.
            const preview = await previewRepository(factoryId, settings, operator);
            printPlan(slug, preview.plan);
            if (preview.plan.problems.length > 0) {
              printProblems(preview.plan.problems);
              console.error(`Commit ${preview.commit.slice(0, 12)} cannot apply: nothing was changed.`);
              return 1;
            }
            printDigest(preview.plan, `use-repository --commit ${preview.commit}`);
            console.log(`Nothing was changed. To apply commit ${preview.commit} of ${settings.branch}, run this again with --commit ${preview.commit} (and --plan, to apply exactly this plan)`);
            return 0;
          }
          const outcome = await connectRepository(factoryId, settings, operator, { commit: values.commit, plan });
          printPlan(slug, outcome.plan);
          if (!outcome.ok) {
            for (const problem of outcome.plan.problems) console.error(`  ${formatProblem(problem)}`);
            console.error(`Commit ${outcome.commit.slice(0, 12)} cannot apply: nothing was changed.`);
            return 1;
          }
          console.log(`${slug}: applied ${outcome.commit} of ${settings.branch}`);
          return printConnections(outcome.connections) ? 0 : 1;
        }
        default:
          throw new UsageError(subcommand ? `Unknown subcommand "${subcommand}"` : 'Missing subcommand');
      }
    });
  });
}

