// The V8 flags a one-shot command runs with (cli/engine-flags.ts applies
// them; the tests' processes take them too): WebAssembly on V8's baseline
// compiler (Liftoff) only, never optimized in the background. TurboFan still
// compiles a function the baseline cannot. docs/decisions/0116.
export const ONE_SHOT_FLAGS = ['--no-wasm-tier-up', '--no-wasm-dynamic-tiering'];

/** Commands that run until stopped, which keep V8's default: optimized WebAssembly pays off there. */
export const LONG_RUNNING_COMMANDS: ReadonlySet<string> = new Set(['start', 'worker', 'listen']);
