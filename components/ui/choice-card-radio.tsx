import { useId, type ComponentProps, type ReactNode } from 'react';
import { choiceCardClass, choiceRadioClass } from './choice-card';

export type ChoiceCardRadioProps = Omit<ComponentProps<'input'>, 'type' | 'children'> & {
  label: ReactNode;
  /** A quiet word after the label, such as "Default" or "Current". */
  note?: ReactNode;
  description: ReactNode;
};

/** A radio drawn as a selectable card: its label, and a description under it (authentication modes, factory kinds, responses). */
export function ChoiceCardRadio({ label, note, description, ...radio }: ChoiceCardRadioProps) {
  const id = useId();
  return (
    <label className={choiceCardClass}>
      <input type="radio" aria-labelledby={`${id}-label`} aria-describedby={`${id}-description`} className={choiceRadioClass} {...radio} />
      <span className="min-w-0">
        <span id={`${id}-label`} className="block font-medium text-fg">
          {label}
          {note ? <span className="ml-1.5 text-[13px] font-normal text-fg-subtle">{note}</span> : null}
        </span>
        <span id={`${id}-description`} className="mt-0.5 block text-[13px] leading-5 text-fg-muted">
          {description}
        </span>
      </span>
    </label>
  );
}
