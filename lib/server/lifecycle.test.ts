import { describe, expect, it } from 'vitest';
import { onShutdown, runShutdownStage, shutdownStage } from '@/lib/server/lifecycle';

// The shutdown's stages end even when a step does not: a query on a connection to a database that
// stopped answering never returns, and the process must still exit.

describe('a shutdown stage', () => {
  it('goes on without a step still going past its deadline, and says which', async () => {
    const ran: string[] = [];
    onShutdown({ name: 'stuck', stage: shutdownStage.work, run: () => new Promise<void>(() => undefined) });
    onShutdown({ name: 'quick', stage: shutdownStage.work, run: async () => void ran.push('quick') });
    onShutdown({ name: 'failing', stage: shutdownStage.work, run: async () => Promise.reject(new Error('the database is gone')) });
    const reports: string[] = [];
    await runShutdownStage(shutdownStage.work, Date.now() + 20, (name, error) => reports.push(`${name}: ${(error as Error).message}`), 50);
    expect(ran).toEqual(['quick']);
    expect(reports.sort()).toEqual(['failing: the database is gone', "stuck: still going 0.05 s past the shutdown's deadline: left behind"]);
  });
});
