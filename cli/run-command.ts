import { toAppError } from '@/lib/platform/http/errors';
import { UsageError } from './args';

/** Runs a command body and turns errors into messages and exit codes (2 usage, 1 failure). */
export async function runCommand(usage: string, args: string[], body: () => Promise<number>): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage);
    return 0;
  }
  try {
    return await body();
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${usage}`);
      return 2;
    }
    const appError = toAppError(error);
    if (appError.code === 'internal') throw error;
    const fields = appError.fields ? Object.entries(appError.fields).map(([k, v]) => `\n  ${k}: ${v}`).join('') : '';
    console.error(`Error: ${appError.message}${fields}`);
    return 1;
  }
}
