import { Badge, type BadgeTone } from '@/components/ui/badge';
import type { planJson } from '@/lib/domain/definitions/json';
import type { DefinitionProblem } from '@/lib/domain/definitions/schemas';

export type PlanJson = ReturnType<typeof planJson>;

const actionTones: Record<PlanJson['actions'][number]['action'], { label: string; tone: BadgeTone }> = {
  create: { label: 'Create', tone: 'success' },
  update: { label: 'Update', tone: 'warning' },
  delete: { label: 'Delete', tone: 'danger' },
};

/** Every problem with its file and key, as the CLI prints them. */
export function ProblemList({ problems }: { problems: DefinitionProblem[] }) {
  return (
    <ul className="flex flex-col gap-1.5" aria-label="Problems">
      {problems.map((problem, index) => (
        <li key={index} className="text-[13px] leading-5">
          <span className="font-mono font-medium">{problem.file}</span>
          {problem.key ? <span className="font-mono"> · {problem.key}</span> : null}
          <span>: {problem.message}</span>
        </li>
      ))}
    </ul>
  );
}

/** What an apply would do: one row per webhook it creates, updates or deletes. */
export function PlanView({ plan }: { plan: PlanJson }) {
  if (plan.actions.length === 0) {
    return (
      <p className="text-fg-muted">
        No changes: {plan.unchanged.length === 0 ? 'no webhooks are defined.' : `the ${plan.unchanged.length} defined ${plan.unchanged.length === 1 ? 'webhook stays' : 'webhooks stay'} as they are.`}
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-2">
      <ul className="divide-y divide-line rounded-lg border border-line" aria-label="Planned changes">
        {plan.actions.map((action) => (
          <li key={`${action.action}-${action.name}`} className="flex items-start gap-3 px-3.5 py-2.5">
            <Badge tone={actionTones[action.action].tone} className="mt-0.5 w-14 justify-center">
              {actionTones[action.action].label}
            </Badge>
            <div className="min-w-0">
              <p className="font-medium text-fg">{action.name}</p>
              {action.changes.length > 0 ? (
                <ul className="mt-0.5 text-[13px] leading-5 text-fg-muted">
                  {action.changes.map((change) => (
                    <li key={change} className="font-mono">
                      {change}
                    </li>
                  ))}
                </ul>
              ) : action.action === 'delete' ? (
                <p className="text-[13px] leading-5 text-fg-muted">Its file is gone: senders get 404, the history is kept.</p>
              ) : (
                <p className="text-[13px] leading-5 text-fg-muted">New UID and ingress URL, from {action.file}</p>
              )}
            </div>
          </li>
        ))}
      </ul>
      {plan.unchanged.length > 0 ? (
        <p className="text-[13px] text-fg-muted">
          {plan.unchanged.length} unchanged: {plan.unchanged.join(', ')}
        </p>
      ) : null}
    </div>
  );
}
