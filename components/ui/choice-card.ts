import { cn } from './cn';

/** A <label> holding a radio and its text, drawn as a selectable card (authentication modes, factory kinds). */
export const choiceCardClass = cn(
  'flex cursor-pointer gap-3 rounded-lg border border-line-strong bg-surface p-3.5 shadow-xs transition-[border-color,box-shadow,background-color] duration-150',
  'hover:border-zinc-400/70',
  'has-checked:border-accent-500 has-checked:bg-accent-50/50 has-checked:ring-1 has-checked:ring-accent-500',
  'has-focus-visible:ring-3 has-focus-visible:ring-accent-500/25',
);

/** The radio inside a choice card. */
export const choiceRadioClass = 'mt-0.5 size-4 shrink-0 cursor-pointer accent-accent-600 focus-visible:outline-none';
