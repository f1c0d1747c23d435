'use client';

import { acceptCompletion, autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap, startCompletion, type Completion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { bracketMatching, HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView, keymap, placeholder as placeholderText } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import { cn } from '@/components/ui/cn';
import type { FieldCatalogue } from '@/lib/domain/fields/catalogue';
import { cursorContext, filterCompletions } from './filter-completion';

// The payload filter's code editor: CodeMirror 6 with its JSON language
// (docs/filters.md, The editor). It completes field names and values from the
// webhook's field catalogue; react-hook-form owns the text through a
// Controller (value/onChange/onBlur), so validation and saving are unchanged.
//
// Keyboard: typing opens the list, Up/Down move in it, Enter or Tab accepts,
// Escape closes it; with no list open Tab leaves the editor as in any other
// field (the editor never traps focus), and Ctrl-Space opens the list.

const highlight = HighlightStyle.define([
  { tag: tags.propertyName, color: 'var(--color-sky-800)' },
  { tag: tags.string, color: 'var(--color-emerald-700)' },
  { tag: tags.number, color: 'var(--color-amber-700)' },
  { tag: tags.bool, color: 'var(--color-violet-700)' },
  { tag: tags.null, color: 'var(--color-rose-600)' },
  { tag: [tags.brace, tags.squareBracket, tags.separator, tags.punctuation], color: 'var(--color-zinc-500)' },
]);

const theme = EditorView.theme({
  '&': { fontSize: '13px', backgroundColor: 'transparent' },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': { fontFamily: 'var(--font-mono)', lineHeight: '20px', maxHeight: '20rem', overflow: 'auto' },
  '.cm-content': { padding: '8px 0', caretColor: 'var(--color-zinc-900)', minHeight: '96px' },
  '.cm-line': { padding: '0 12px' },
  '.cm-placeholder': { color: 'var(--color-fg-muted)' },
  '.cm-matchingBracket': { backgroundColor: 'var(--color-accent-100)', outline: 'none' },
  '.cm-tooltip': { border: '1px solid var(--color-zinc-200)', borderRadius: '8px', boxShadow: '0 8px 24px -8px rgb(0 0 0 / 0.18)', backgroundColor: 'white', overflow: 'hidden' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul': { fontFamily: 'var(--font-mono)', fontSize: '13px', maxHeight: '16rem', minWidth: '16rem' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul > li': { padding: '3px 10px', lineHeight: '20px' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { backgroundColor: 'var(--color-accent-50)', color: 'var(--color-zinc-900)' },
  '.cm-completionDetail': { fontFamily: 'var(--font-sans)', fontStyle: 'normal', color: 'var(--color-zinc-500)', marginLeft: '12px', fontSize: '12px' },
  '.cm-completionMatchedText': { textDecoration: 'none', fontWeight: '600', color: 'var(--color-accent-700)' },
  '.cm-completionInfo': { fontFamily: 'var(--font-mono)', fontSize: '12px', padding: '6px 10px', maxWidth: '22rem', color: 'var(--color-zinc-600)' },
  '.cm-completionIcon': { display: 'none' },
});

export type FilterCodeEditorProps = {
  value: string;
  onChange: (text: string) => void;
  onBlur?: () => void;
  readOnly?: boolean;
  /** The webhook's field catalogue, or null before it loads (completion then offers the operators alone). */
  catalogue: FieldCatalogue | null;
  placeholder?: string;
  /** For react-hook-form: focuses the editor when the field has an error on submit. */
  editorRef?: Ref<{ focus: () => void }>;
  id?: string;
  'aria-label': string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
};

function completionSource(readCatalogue: () => FieldCatalogue | null) {
  return (context: CompletionContext): CompletionResult | null => {
    const text = context.state.doc.toString();
    const at = cursorContext(text, context.pos);
    if (!at) return null;
    // Matching runs on what follows an opening quote of a field name; the quote is replaced too.
    const from = at.kind === 'key' && text[at.from] === '"' ? at.from + 1 : at.from;
    if (!context.explicit && at.kind === 'value' && at.prefix === '' && !/[:[,]\s*$/.test(text.slice(0, context.pos))) return null;
    const options = filterCompletions(at, readCatalogue()).map(
      (option): Completion => ({
        label: option.label,
        detail: option.detail,
        info: option.info,
        type: option.type,
        boost: option.boost,
        apply: (view, _completion, _from, to) => {
          // A closing quote that closeBrackets typed after the cursor belongs to what is replaced.
          const quoted = at.kind === 'key' ? text[at.from] === '"' : at.prefix.startsWith('"');
          const end = quoted && view.state.sliceDoc(to, to + 1) === '"' ? to + 1 : to;
          view.dispatch({ changes: { from: at.from, to: end, insert: option.insert }, selection: { anchor: at.from + option.insert.length }, userEvent: 'input.complete' });
          if (option.reopen) queueMicrotask(() => startCompletion(view));
        },
      }),
    );
    return options.length ? { from, options } : null;
  };
}

/** A JSON code editor for a payload filter, labelled and described like any field. */
export function FilterCodeEditor({
  value,
  onChange,
  onBlur,
  readOnly = false,
  catalogue,
  placeholder,
  editorRef,
  id,
  'aria-label': ariaLabel,
  'aria-describedby': describedBy,
  'aria-invalid': invalid,
}: FilterCodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef({ onChange, onBlur, catalogue });
  const [compartments] = useState(() => ({ attributes: new Compartment(), readOnly: new Compartment() }));
  const [mounted, setMounted] = useState(false);

  useEffect(() => {
    latest.current = { onChange, onBlur, catalogue };
  }, [onChange, onBlur, catalogue]);

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          history(),
          json(),
          closeBrackets(),
          bracketMatching(),
          syntaxHighlighting(highlight),
          autocompletion({ override: [completionSource(() => latest.current.catalogue)], icons: false, activateOnTyping: true }),
          keymap.of([{ key: 'Tab', run: acceptCompletion }, ...closeBracketsKeymap, ...completionKeymap, ...historyKeymap, ...defaultKeymap]),
          EditorView.lineWrapping,
          theme,
          placeholder ? placeholderText(placeholder) : [],
          compartments.attributes.of([]),
          compartments.readOnly.of([]),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
            if (update.focusChanged && !update.view.hasFocus) latest.current.onBlur?.();
          }),
        ],
      }),
    });
    view.current = editor;
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the editor exists only in the browser; until then the text is shown as is
    setMounted(true);
    return () => {
      editor.destroy();
      view.current = null;
    };
    // Created once; the value, attributes and read-only state follow below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // The form changed the value (reset, Filter on this): the editor follows.
  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({
      effects: [
        compartments.attributes.reconfigure(
          EditorView.contentAttributes.of({
            'aria-label': ariaLabel,
            ...(id ? { id } : {}),
            ...(describedBy ? { 'aria-describedby': describedBy } : {}),
            ...(invalid ? { 'aria-invalid': 'true' } : {}),
            ...(readOnly ? { 'aria-readonly': 'true' } : {}),
          }),
        ),
        compartments.readOnly.reconfigure(readOnly ? [EditorState.readOnly.of(true), EditorView.editable.of(false)] : []),
      ],
    });
  }, [compartments, ariaLabel, id, describedBy, invalid, readOnly, mounted]);

  useImperativeHandle(editorRef, () => ({ focus: () => view.current?.focus() }), []);

  return (
    <div
      data-invalid={invalid ? '' : undefined}
      data-readonly={readOnly ? '' : undefined}
      className={cn(
        'w-full min-w-0 rounded-control border border-line-strong bg-surface text-fg shadow-xs transition-[border-color,box-shadow] duration-150',
        'hover:border-zinc-400/70 focus-within:border-accent-500 focus-within:ring-3 focus-within:ring-accent-500/20',
        'data-invalid:border-red-500 data-invalid:focus-within:border-red-500 data-invalid:focus-within:ring-red-500/20 data-readonly:bg-subtle/60',
      )}
    >
      <div ref={host} />
      {mounted ? null : (
        <pre className="min-h-[112px] px-3 py-2 font-mono text-[13px] leading-5 whitespace-pre-wrap text-fg" aria-hidden="true">
          {value}
        </pre>
      )}
    </div>
  );
}
