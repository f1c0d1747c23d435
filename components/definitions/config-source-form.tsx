'use client';

import { useRouter } from 'next/navigation';
import { useId, useState, useTransition } from 'react';
import { RepositoryApply } from '@/components/definitions/repository-apply';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import { ChoiceCardRadio } from '@/components/ui/choice-card-radio';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { setConfigSourceAction } from '@/lib/domain/definitions/actions';
import { repositorySettingsSchema, type RepositorySettings } from '@/lib/domain/definitions/schemas';
import { parseRepositoryUrl } from '@/lib/domain/definitions/repository-url';
import { reach } from '@/components/forms/reach';

type Source = 'dashboard' | 'managed' | 'repository';

const options: Array<{ value: Source; label: string; description: string }> = [
  {
    value: 'dashboard',
    label: 'Dashboard',
    description: 'Webhooks are created and changed here. No definition files.',
  },
  {
    value: 'managed',
    label: 'Managed definition files',
    description: 'Tripline keeps one file per webhook; the dashboard writes it, then applies it. Files can be downloaded.',
  },
  {
    value: 'repository',
    label: 'Git repository',
    description: 'The files live in a repository’s production branch; each new commit applies. Read-only here.',
  },
];

export function ConfigSourceForm({
  factorySlug,
  current,
  repoUrl,
  repoBranch,
  credentialStored,
}: {
  factorySlug: string;
  current: Source;
  /** The stored location, without credentials (they are never sent to the browser). */
  repoUrl: string | null;
  repoBranch: string;
  /** Whether a credential is stored for the repository. */
  credentialStored: boolean;
}) {
  const router = useRouter();
  const ids = useId();
  const [source, setSource] = useState<Source>(current);
  const [url, setUrl] = useState(repoUrl ?? '');
  const [branch, setBranch] = useState(repoBranch);
  const [removeCredential, setRemoveCredential] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<{ url?: string; branch?: string }>({});
  const [error, setError] = useState<string | null>(null);
  const [saving, startSaving] = useTransition();

  const repositorySettings = (): RepositorySettings | null => {
    const parsed = repositorySettingsSchema.safeParse({ url, branch, removeCredential });
    if (parsed.success) {
      setFieldErrors({});
      return parsed.data;
    }
    const errors: { url?: string; branch?: string } = {};
    for (const issue of parsed.error.issues) errors[issue.path[0] as 'url' | 'branch'] ??= issue.message;
    setFieldErrors(errors);
    return null;
  };

  const save = () =>
    startSaving(async () => {
      if (source === 'repository') return;
      setError(null);
      const result = await reach(setConfigSourceAction)(factorySlug, { source });
      if (!result.ok) return setError(result.error.message);
      router.refresh();
    });

  const unchanged = source === current && source !== 'repository';
  const newCredential = (() => {
    try {
      return parseRepositoryUrl(url).credential !== null;
    } catch {
      return false;
    }
  })();

  // A refused location, an unreachable repository or a missing branch is said next to its field.
  const showError = (message: string | null, fields?: Record<string, string>) => {
    setFieldErrors({ url: fields?.url, branch: fields?.branch });
    setError(fields?.url || fields?.branch ? null : message);
  };

  return (
    <div className="flex flex-col gap-5">
      <fieldset className="flex flex-col gap-3">
        <legend className="mb-1.5 text-sm font-medium text-fg">Where this factory’s webhooks are defined</legend>
        <div className="grid gap-3 md:grid-cols-3">
          {options.map((option) => (
            <ChoiceCardRadio
              key={option.value}
              name={`${ids}-source`}
              value={option.value}
              checked={source === option.value}
              onChange={() => setSource(option.value)}
              label={option.label}
              note={option.value === current ? 'Current' : undefined}
              description={option.description}
            />
          ))}
        </div>
      </fieldset>

      {source === 'repository' ? (
        <div className="flex flex-col gap-5 rounded-lg border border-line bg-subtle/50 p-4">
          <div className="grid gap-5 md:grid-cols-[1fr_14rem]">
            <Field
              label="Repository"
              required
              error={fieldErrors.url}
              hint="An https:// or ssh:// URL, or user@host:path, on a public host. A token in an https URL (https://user:token@host/…) is stored encrypted and never shown again. Definitions are read from webhooks/ at its root."
            >
              <Input mono spellCheck={false} value={url} onChange={(event) => setUrl(event.target.value)} placeholder="https://git.example.com/acme/tripline.git" />
            </Field>
            <Field label="Production branch" required error={fieldErrors.branch}>
              <Input mono spellCheck={false} value={branch} onChange={(event) => setBranch(event.target.value)} />
            </Field>
          </div>
          {credentialStored ? (
            <div className="flex flex-col gap-2" data-testid="stored-credential">
              <p className="text-[13px] text-fg-muted">
                {newCredential
                  ? 'The credential in the URL will replace the stored one.'
                  : 'A credential is stored for this repository (it is never shown). It is used while the URL stays on the same host; enter a URL with a new token to replace it.'}
              </p>
              {newCredential ? null : (
                <Checkbox label="Remove the stored credential" checked={removeCredential} onChange={(event) => setRemoveCredential(event.target.checked)} />
              )}
            </div>
          ) : null}
          <div className="flex flex-wrap items-center gap-3">
            <RepositoryApply
              factorySlug={factorySlug}
              settings={repositorySettings}
              label={current === 'repository' ? 'Check and apply' : 'Check repository'}
              onError={showError}
            />
            <p className="text-[13px] text-fg-muted">Shows what its newest commit would change before anything applies.</p>
          </div>
        </div>
      ) : (
        <div className="flex items-center gap-3">
          <Button type="button" onClick={save} loading={saving} disabled={unchanged}>
            Save
          </Button>
          {source === 'managed' && current !== 'managed' ? (
            <p className="text-[13px] text-fg-muted">The current webhooks are written as files; nothing is re-applied.</p>
          ) : source === 'dashboard' && current !== 'dashboard' ? (
            <p className="text-[13px] text-fg-muted">The definition files are dropped; the webhooks stay as they are.</p>
          ) : null}
        </div>
      )}
      {error ? <Alert tone="danger">{error}</Alert> : null}
    </div>
  );
}
