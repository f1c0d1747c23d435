// `npm run test:slow`: the whole suite on a machine made slow on purpose, as
// CI's machines can be. A CPU hog keeps one core busy at normal priority for
// the whole run, in a session of its own (so Linux's autogroup scheduler
// weighs it as an equal of the test run, as another tenant's load would be),
// and the suite must still pass: no verdict may depend on the machine's speed.
//
//   npm run test:slow                     npm test beside one busy core
//   node scripts/test-slow.mjs bash .ci/run
//                                         CI's script beside one busy core
//
// TRIPLINE_SLOW_HOGS=2 keeps two cores busy instead.
import { spawn } from 'node:child_process';

const command = process.argv.length > 2 ? process.argv.slice(2) : ['npm', 'test'];
const hogCount = Math.max(1, Number(process.env.TRIPLINE_SLOW_HOGS ?? 1) || 1);

const hogs = Array.from({ length: hogCount }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { detached: true, stdio: 'ignore' }),
);
const stopHogs = () => {
  for (const hog of hogs) {
    try {
      process.kill(-hog.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
};
process.on('exit', stopHogs);
console.log(`test:slow: ${hogCount} CPU hog${hogCount > 1 ? 's' : ''} (pid ${hogs.map((hog) => hog.pid).join(', ')}) at normal priority beside: ${command.join(' ')}`);

const started = Date.now();
const run = spawn(command[0], command.slice(1), { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    run.kill(signal);
  });
}
run.once('close', (status, signal) => {
  stopHogs();
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(`test:slow: ${command.join(' ')} ${status === 0 ? 'passed' : 'FAILED'} in ${Math.floor(seconds / 60)} min ${seconds % 60} s beside ${hogCount} busy core${hogCount > 1 ? 's' : ''}`);
  process.exit(status ?? (signal ? 1 : 0));
});
