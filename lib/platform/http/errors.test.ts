import { describe, expect, it } from 'vitest';
import { errorResponse, toAppError } from '@/lib/platform/http/errors';

// What the one error boundary of every route answers for what a database can throw.

describe('toAppError', () => {
  it('answers a deadlock or serialization failure (Prisma P2034) with 409 and Retry-After, saying to send it again, not 500', async () => {
    const error = Object.assign(new Error('Transaction failed due to a write conflict or a deadlock. Please retry your transaction'), { code: 'P2034' });
    expect(toAppError(error)).toMatchObject({ code: 'conflict', status: 409, retryAfterSeconds: 1 });
    const response = errorResponse(error);
    expect(response.status).toBe(409);
    expect(response.headers.get('Retry-After')).toBe('1');
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/at the same moment, so this one was not saved\. Send it again\./);
  });

  it('keeps a unique violation a conflict without Retry-After, and an unknown error a 500', () => {
    expect(toAppError(Object.assign(new Error('unique'), { code: 'P2002' }))).toMatchObject({ code: 'conflict', retryAfterSeconds: undefined });
    expect(errorResponse(new Error('boom')).status).toBe(500);
  });
});
