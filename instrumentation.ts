// Runs once when the Next.js server starts: migrate, check keys, start the
// background jobs. Lives at the top level because Next.js looks for it there.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { startServer } = await import('@/lib/server/startup');
  await startServer();
}
