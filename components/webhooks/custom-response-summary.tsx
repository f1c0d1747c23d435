import type { CustomResponse } from '@/lib/ingress/custom-response';

export const statusLabels: Record<CustomResponse['status'], string> = { 200: '200 OK', 201: '201 Created', 202: '202 Accepted', 204: '204 No Content' };

/** The webhook page's Response row: what a sender receives for an accepted or duplicate delivery. */
export function CustomResponseSummary({ response }: { response: CustomResponse | null }) {
  if (!response) {
    return (
      <>
        202 Accepted <span className="text-fg-muted">· Tripline’s answer,</span>{' '}
        <span className="font-mono text-[13px]">{'{"delivery_id": "…"}'}</span>
      </>
    );
  }
  return (
    <div className="flex flex-col gap-2">
      <p>
        <span className="font-medium">{statusLabels[response.status]}</span>
        {response.contentType ? (
          <>
            {' '}
            · <span className="font-mono text-[13px]">{response.contentType}</span>
          </>
        ) : (
          <span className="text-fg-muted"> · no body</span>
        )}
      </p>
      {response.body !== null ? (
        <pre
          aria-label="Response body"
          className="max-h-48 overflow-auto rounded-md border border-line bg-subtle px-3 py-2 font-mono text-[13px] leading-5 break-all whitespace-pre-wrap"
        >
          {response.body === '' ? <span className="text-fg-muted">(empty)</span> : response.body}
        </pre>
      ) : null}
    </div>
  );
}
