import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from './node-version.mjs';

describe('the Node.js versions Tripline runs on', () => {
  it.each(['22.12.0', '22.23.3', '24.0.0', '24.21.0', '25.1.0', '26.12.1', '30.0.0'])('accepts %s', (version) => {
    expect(nodeVersionProblem(version)).toBeNull();
  });

  it.each(['20.20.2', '21.7.3', '22.11.0', '18.20.0', '0.10.48'])('refuses %s, naming it and the LTS lines', (version) => {
    expect(nodeVersionProblem(version)).toBe(
      `Tripline needs Node.js 22.12 or later, on a maintained LTS line (22, 24, 26); this is Node.js ${version}. Install a current LTS release (https://nodejs.org) and run the command again.`,
    );
  });
});
