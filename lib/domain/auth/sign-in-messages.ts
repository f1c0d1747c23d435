// What the sign-in form says for each outcome. next-auth hands a failure of
// authorize() to the browser as the error's message, so the server throws
// these codes and the form turns them into sentences.

export const signInErrorCodes = {
  disabled: 'AccountDisabled',
  throttledPrefix: 'Throttled:',
} as const;

export function throttledCode(retryAfterSeconds: number): string {
  return `${signInErrorCodes.throttledPrefix}${retryAfterSeconds}`;
}

/** "30 seconds", "1 minute", "15 minutes": rounded up, never "0". */
export function formatWait(seconds: number): string {
  if (seconds < 60) {
    const s = Math.max(1, Math.ceil(seconds));
    return `${s} ${s === 1 ? 'second' : 'seconds'}`;
  }
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}

/** The sentence for next-auth's `error` after a refused sign-in. Never says whether the email has an account. */
export function signInErrorMessage(error: string): string {
  if (error.startsWith(signInErrorCodes.throttledPrefix)) {
    const seconds = Number(error.slice(signInErrorCodes.throttledPrefix.length));
    const wait = Number.isFinite(seconds) && seconds > 0 ? formatWait(seconds) : 'a few minutes';
    return `Too many failed sign-in attempts. For your security, sign-in is paused: try again in ${wait}.`;
  }
  if (error === signInErrorCodes.disabled) return 'This account is disabled. Ask an instance admin of this Tripline to enable it.';
  return 'The email or password is incorrect.';
}
