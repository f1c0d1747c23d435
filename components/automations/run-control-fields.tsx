'use client';

import type { ReactNode } from 'react';
import { useWatch, type Control, type FieldErrors, type UseFormRegister } from 'react-hook-form';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { ChoiceCardRadio } from '@/components/ui/choice-card-radio';
import { Field, type FieldControlProps } from '@/components/ui/field';
import { AlertCircleIcon } from '@/components/ui/icons';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { ControlledSwitch } from '@/components/ui/controlled-switch';
import type { CreateAutomationInput } from '@/lib/domain/automations/schemas';
import { MAX_GROUPS_PER_AUTOMATION, WHEN_FULL } from '@/lib/domain/run-control/config';
import { PERIOD_UNITS, WHEN_FULL_LABELS } from '@/lib/domain/run-control/describe';
import type { AutomationFormValues } from './form-values';
import { DEFAULT_QUEUE_TEXT, type RunControlFormValues } from './run-control-values';

// The editor's Run control section (docs/automations.md, Run control). Off
// by default; on, each stage has a switch of its own, shown in the order the
// stages apply: debounce, then the throttle or rate limit, then concurrency.

type FormControl = Control<AutomationFormValues, unknown, CreateAutomationInput>;
type Props = { control: FormControl; register: UseFormRegister<AutomationFormValues>; errors: FieldErrors<AutomationFormValues>; readOnly: boolean };
type Name = keyof RunControlFormValues;

/** An amount and its unit: the amount is the labelled control, the unit says which it is. */
function PeriodInput({
  amount,
  unit,
  label,
  control,
  register,
  readOnly,
  placeholder,
}: Pick<Props, 'register'> & { amount: Name; unit: Name; label: string; control: FieldControlProps; readOnly: boolean; placeholder?: string }) {
  return (
    // The controls fill their cells (their base style is w-full): the grid sizes them.
    <div className="grid grid-cols-[minmax(0,1fr)_8rem] gap-2">
      <Input inputMode="numeric" autoComplete="off" placeholder={placeholder} readOnly={readOnly} {...control} {...register(`runControl.${amount}`)} />
      <Select aria-label={`${label}: unit`} disabled={readOnly} {...register(`runControl.${unit}`)}>
        {PERIOD_UNITS.map((option) => (
          <option key={option.unit} value={option.unit}>
            {option.unit}
          </option>
        ))}
      </Select>
    </div>
  );
}

/** One stage: its switch, what it does, and its settings while it is on. */
function Stage({ name, label, description, control, readOnly, children }: { name: 'debounce' | 'pace' | 'concurrency'; label: string; description: string; control: FormControl; readOnly: boolean; children: ReactNode }) {
  const on = useWatch({ control, name: `runControl.${name}` });
  return (
    <li className="flex flex-col gap-4 rounded-lg border border-line p-4">
      <ControlledSwitch control={control} name={`runControl.${name}`} label={label} description={description} disabled={readOnly} />
      {on ? <div className="flex flex-col gap-4 border-t border-line pt-4">{children}</div> : null}
    </li>
  );
}

const message = (errors: Props['errors'], name: Name) => errors.runControl?.[name]?.message;

/** A message about a group of controls (Field shows its own control's). */
function ErrorLine({ id, message }: { id?: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="flex items-start gap-1.5 text-[13px] leading-5 text-red-700">
      <AlertCircleIcon className="mt-0.5 size-3.5 shrink-0" />
      <span>{message}</span>
    </p>
  );
}

/** `footer`: the form's save bar, as this is its last card. */
export function RunControlFields({ control, register, errors, readOnly, footer }: Props & { footer?: ReactNode }) {
  const [enabled, whenFull, paceKind] = useWatch({ control, name: ['runControl.enabled', 'runControl.whenFull', 'runControl.paceKind'] });
  const whole = message(errors, 'enabled');
  return (
    <Card role="region" aria-label="Run control">
      <CardHeader
        title="Run control"
        description="What a burst of matching deliveries starts: one run per group at a time, the latest after a quiet period, or at most so many per minute. Off: every matching delivery starts a run at once."
      />
      <CardBody className="flex flex-col gap-6">
        <ControlledSwitch
          control={control}
          name="runControl.enabled"
          label="Use run control"
          description="Deliveries are grouped by a key; debounce, a throttle or rate limit, and concurrency then apply to each group on its own."
          disabled={readOnly}
        />
        {enabled ? (
          <>
            <Field
              label="Key"
              optional
              error={message(errors, 'key')}
              hint={`What groups deliveries: payload paths written as in the payload filter (pull_request.number), $event for the event type, $header.<name> for a request header; separate parts with commas. No key: one group for the whole automation. A delivery missing a part falls in one group of its own. At most ${MAX_GROUPS_PER_AUTOMATION.toLocaleString('en-US')} groups are kept; the longest idle are forgotten first.`}
            >
              <Input mono autoComplete="off" spellCheck={false} placeholder="repository.full_name, pull_request.number" readOnly={readOnly} {...register('runControl.key')} />
            </Field>

            <ol className="flex flex-col gap-4" aria-label="Stages, in the order they apply">
              <Stage
                name="debounce"
                label="Debounce"
                description="Wait until a group has been quiet for a period, then start one run with its latest delivery; the others are Debounced into it."
                control={control}
                readOnly={readOnly}
              >
                <div className="grid gap-4 sm:grid-cols-2">
                  <Field label="Quiet period" required error={message(errors, 'debouncePeriod')} hint="1 second to 24 hours after the group’s last delivery.">
                    {(props) => <PeriodInput amount="debouncePeriod" unit="debounceUnit" label="Quiet period" control={props} register={register} readOnly={readOnly} />}
                  </Field>
                  <Field label="Maximum wait" optional error={message(errors, 'maxWait')} hint="A steady stream still runs this long after its first delivery.">
                    {(props) => <PeriodInput amount="maxWait" unit="maxWaitUnit" label="Maximum wait" control={props} register={register} readOnly={readOnly} placeholder="None" />}
                  </Field>
                </div>
              </Stage>

              <Stage
                name="pace"
                label="Throttle or rate limit"
                description="At most so many runs start per period in each group."
                control={control}
                readOnly={readOnly}
              >
                <fieldset className="grid gap-3 sm:grid-cols-2" disabled={readOnly}>
                  <legend className="sr-only">The runs past the limit</legend>
                  <ChoiceCardRadio value="throttle" label="Throttle" description="Runs past the limit wait their turn (Throttled), up to the queue limit." {...register('runControl.paceKind')} />
                  <ChoiceCardRadio value="rateLimit" label="Rate limit" description="Runs past the limit do not start: their deliveries are Skipped, saying why." {...register('runControl.paceKind')} />
                </fieldset>
                <div className="grid gap-4 sm:grid-cols-3">
                  <Field label="Runs" required error={message(errors, 'paceLimit')} hint="At most this many start…">
                    <Input inputMode="numeric" autoComplete="off" readOnly={readOnly} {...register('runControl.paceLimit')} />
                  </Field>
                  <Field label="Per" required error={message(errors, 'pacePeriod')} hint="…in any period this long.">
                    {(props) => <PeriodInput amount="pacePeriod" unit="paceUnit" label="Per" control={props} register={register} readOnly={readOnly} />}
                  </Field>
                  {paceKind === 'throttle' ? (
                    <Field label="Queue limit" optional error={message(errors, 'paceQueueLimit')} hint={`Throttled deliveries kept per group (default ${DEFAULT_QUEUE_TEXT}); past it, one is Skipped.`}>
                      <Input inputMode="numeric" autoComplete="off" placeholder={DEFAULT_QUEUE_TEXT} readOnly={readOnly} {...register('runControl.paceQueueLimit')} />
                    </Field>
                  ) : null}
                </div>
              </Stage>

              <Stage
                name="concurrency"
                label="Concurrency"
                description="At most so many runs in progress per group at once."
                control={control}
                readOnly={readOnly}
              >
                <Field label="Runs in progress" required error={message(errors, 'concurrencyLimit')} hint="Per group, 1 to 100." className="max-w-xs">
                  <Input inputMode="numeric" autoComplete="off" readOnly={readOnly} {...register('runControl.concurrencyLimit')} />
                </Field>
                <fieldset className="flex flex-col gap-1.5" disabled={readOnly} aria-describedby={message(errors, 'whenFull') ? 'when-full-error' : undefined}>
                  <legend className="mb-1.5 text-sm font-medium text-fg">When the group is full</legend>
                  <div className="grid gap-3 sm:grid-cols-2">
                    {WHEN_FULL.map((value) => (
                      <ChoiceCardRadio
                        key={value}
                        value={value}
                        label={WHEN_FULL_LABELS[value].label}
                        note={value === 'queue-newest' ? 'Default' : undefined}
                        description={WHEN_FULL_LABELS[value].explanation}
                        {...register('runControl.whenFull')}
                      />
                    ))}
                  </div>
                  <ErrorLine id="when-full-error" message={message(errors, 'whenFull')} />
                </fieldset>
                {whenFull === 'queue-all' ? (
                  <Field label="Queue limit" optional error={message(errors, 'queueLimit')} hint={`Deliveries that may wait per group (default ${DEFAULT_QUEUE_TEXT}); past it, one is Skipped.`} className="max-w-xs">
                    <Input inputMode="numeric" autoComplete="off" placeholder={DEFAULT_QUEUE_TEXT} readOnly={readOnly} {...register('runControl.queueLimit')} />
                  </Field>
                ) : null}
              </Stage>
            </ol>
            <ErrorLine message={whole} />
          </>
        ) : null}
      </CardBody>
      {footer}
    </Card>
  );
}
