import { describe, expect, it } from 'vitest';
import { checkOutboundUrl } from '@/lib/platform/http/outbound';
import { AppError } from '@/lib/platform/http/errors';

// The address rules for a URL a user chose and the server connects to (a
// notification destination, a connection's API base URL).

const SETTING = 'TRIPLINE_CONNECTION_ALLOW';
const refusal = (url: string, access = { http: false, private: false }) => {
  try {
    checkOutboundUrl(url, access, SETTING, 'apiBaseUrl', 'an API base URL');
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).fields?.apiBaseUrl ?? null;
  }
};

describe('checkOutboundUrl', () => {
  it('accepts https:// to a public host', () => {
    expect(refusal('https://api.github.com')).toBeNull();
    expect(refusal('https://github.example.com/api/v3')).toBeNull();
  });

  it.each(['https://127.0.0.1', 'https://localhost:8443', 'https://10.1.2.3', 'https://169.254.169.254/latest', 'https://[::1]', 'https://[::ffff:192.168.0.1]', 'https://2130706433', 'https://0x7f.1', 'https://api.localhost'])(
    'refuses %s unless the operator allows private addresses',
    (url) => {
      expect(refusal(url)).toMatch(new RegExp(`^Refused: private address.*${SETTING}=private`));
      expect(refusal(url, { http: false, private: true })).toBeNull();
    },
  );

  it('refuses plain http:// unless allowed, and any user name or password', () => {
    expect(refusal('http://api.github.com')).toBe(`Refused: use an https:// URL (the operator allows http:// with ${SETTING}=http)`);
    expect(refusal('http://api.github.com', { http: true, private: false })).toBeNull();
    expect(refusal('https://user:pass@api.github.com')).toBe('Refused: an API base URL cannot carry a user name or password');
    expect(refusal('not a url')).toBe('Enter a full URL, such as https://api.github.com');
  });
});
