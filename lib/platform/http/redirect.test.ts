import { describe, expect, it } from 'vitest';
import { safeRedirectPath } from '@/lib/platform/http/redirect';

const origin = 'https://hooks.example.com';

describe('safeRedirectPath', () => {
  it.each([
    ['a plain path', '/f/acme/automations', '/f/acme/automations'],
    ['a path with query and fragment', '/invite/abc?x=1#top', '/invite/abc?x=1#top'],
    ['an absolute URL on our origin', 'https://hooks.example.com/settings', '/settings'],
    ['a relative path', 'settings', '/settings'],
    ['a backslash host (browsers read /\\ as //)', '/\\evil.example/x', '/'],
    ['a percent-decoded backslash host', decodeURIComponent('/%5Cevil.example/x'), '/'],
    ['a protocol-relative URL', '//evil.example/x', '/'],
    ['another origin', 'https://evil.example/x', '/'],
    ['another scheme on our host', 'http://hooks.example.com/x', '/'],
    ['javascript:', 'javascript:alert(1)', '/'],
    ['a path that collapses to two slashes', '/.//evil.example/x', '/evil.example/x'],
    ['tabs and newlines inside the scheme-relative prefix', '/\t/evil.example', '/'],
    ['nothing', undefined, '/'],
    ['an empty string', '', '/'],
    ['a list (repeated parameter) takes the first', ['/a', 'https://evil.example'], '/a'],
  ])('%s', (_name, target, expected) => {
    expect(safeRedirectPath(target, origin)).toBe(expected);
  });
});
