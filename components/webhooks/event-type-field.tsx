'use client';

import type { FieldPath, FieldValues, UseFormRegister } from 'react-hook-form';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';

/** The form values the Event type field edits: a selector and one input per source. */
export type EventTypeFieldValues = {
  eventTypeFrom: 'header' | 'path';
  eventTypeHeader: string;
  eventTypePath: string;
};

const hints = {
  path: 'Keys into the JSON body separated by dots, such as data.type; a number picks an array item (events.0.type). The log, filters and triggers use the value as the delivery’s type.',
  header: 'A request header in which the sender names the kind of event, such as X-Event-Type. The log, filters and triggers use it as the delivery’s type.',
};

/**
 * The Event type setting of bearer and URL token webhooks, in the create form
 * and on the webhook's page: where the type is read from (a header or a body
 * path) and one input for it. Only the field the selector shows is submitted.
 */
export function EventTypeField<T extends FieldValues & EventTypeFieldValues>({
  register,
  from,
  error,
  hintSuffix,
  className,
}: {
  register: UseFormRegister<T>;
  from: 'header' | 'path';
  error?: string;
  /** Said after the hint, e.g. what happens to entries already in the log. */
  hintSuffix?: string;
  className?: string;
}) {
  const name = (from === 'path' ? 'eventTypePath' : 'eventTypeHeader') as FieldPath<T>;
  return (
    <Field label="Event type" optional className={className} error={error} hint={hintSuffix ? `${hints[from]} ${hintSuffix}` : hints[from]}>
      {(fieldControl) => (
        <div className="flex flex-col gap-2 sm:flex-row">
          <Select aria-label="Read the event type from" className="sm:w-40" {...register('eventTypeFrom' as FieldPath<T>)}>
            <option value="header">Header</option>
            <option value="path">Body path</option>
          </Select>
          <Input
            key={from}
            mono
            autoComplete="off"
            spellCheck={false}
            className="min-w-0 flex-1"
            placeholder={from === 'path' ? 'data.type' : 'X-Event-Type'}
            {...fieldControl}
            {...register(name)}
          />
        </div>
      )}
    </Field>
  );
}
