import { describe, expect, it } from 'vitest';
import { parseEntryConfig as parseProcessEnv } from '@/lib/platform/entry/entry-config';

const parseEntryConfig = (source: Record<string, string>) => parseProcessEnv(source as NodeJS.ProcessEnv);

// The server entry's own variables: ports, proxies, shutdown and keep-alive.

describe('server entry configuration', () => {
  it('keeps idle connections 125 s by default, longer than the proxies in front (nginx 60 s, Caddy 120 s)', () => {
    expect(parseEntryConfig({}).keepAliveMs).toBe(125_000);
    expect(parseEntryConfig({ TRIPLINE_KEEP_ALIVE_SECONDS: '620' }).keepAliveMs).toBe(620_000);
    expect(parseEntryConfig({ TRIPLINE_KEEP_ALIVE_SECONDS: '' }).keepAliveMs).toBe(125_000);
  });

  it('refuses a keep-alive of 0, which Node would take as "keep idle connections forever"', () => {
    expect(() => parseEntryConfig({ TRIPLINE_KEEP_ALIVE_SECONDS: '0' })).toThrow(/TRIPLINE_KEEP_ALIVE_SECONDS: .*>=1/);
    expect(() => parseEntryConfig({ TRIPLINE_KEEP_ALIVE_SECONDS: 'soon' })).toThrow(/TRIPLINE_KEEP_ALIVE_SECONDS: /);
    expect(() => parseEntryConfig({ TRIPLINE_KEEP_ALIVE_SECONDS: '7200' })).toThrow(/TRIPLINE_KEEP_ALIVE_SECONDS: .*<=3600/);
  });
});
