'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { CopyField } from '@/components/ui/copy-button';
import { revealHandshakeTokenAction } from '@/lib/domain/webhooks/actions';
import { reach } from '@/components/forms/reach';

/**
 * Shows Notion's verification token once, to paste into Notion's Verify
 * dialog. `shownAt` is set once an admin revealed it: the token then lives
 * only in the state of the browser that asked for it.
 */
export function HandshakeTokenReveal({ factorySlug, uid, shownAt }: { factorySlug: string; uid: string; shownAt: string | null }) {
  const [token, setToken] = useState<string | null>(null);
  const [gone, setGone] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  async function reveal() {
    setPending(true);
    const result = await reach(revealHandshakeTokenAction)(factorySlug, { uid });
    setPending(false);
    if (result.ok && result.data.token) setToken(result.data.token);
    else if (result.ok) setGone(true);
    else if (result.error.code === 'conflict') setRefusal(result.error.message);
    // Anything else (the server unreachable, the session ended) left the token where it was: say why, and keep the button.
    else setFailure(result.error.message);
  }

  if (refusal) {
    return (
      <p role="alert" className="mt-3">
        {refusal}
      </p>
    );
  }

  if (token) {
    return (
      <div className="mt-3 flex flex-col gap-2">
        <CopyField value={token} aria-label="Verification token" copyLabel="Copy token" />
        <p>Paste it into Notion now: this page will not show it again. It is also this webhook’s signing secret.</p>
      </div>
    );
  }
  if (gone || shownAt) {
    const when = shownAt ? ` at ${new Date(shownAt).toLocaleTimeString()}` : '';
    return <p className="mt-3">The token was already shown{when}: Tripline shows it only once.</p>;
  }
  return (
    <>
      <Button type="button" size="sm" className="mt-3" loading={pending} onClick={reveal} aria-describedby={failure ? 'handshake-token-failure' : undefined}>
        Show the token once
      </Button>
      {failure ? (
        <p id="handshake-token-failure" role="alert" className="mt-2 text-[13px] leading-5 text-red-700">
          {failure}
        </p>
      ) : null}
    </>
  );
}
