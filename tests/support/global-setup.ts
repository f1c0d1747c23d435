import { prepareBundles } from './bundle';

// Vitest's global setup: the command line and the helper programs, bundled
// once for the whole run; the workers inherit their folder's name
// (tests/support/bundle.ts).
export default function setup(): void {
  prepareBundles();
}
