// The Node.js versions Tripline runs on: the maintained LTS lines, 22 (from
// 22.12), 24 and 26. package.json's `engines` says the same; `npm start`,
// `npm test` and the server entry refuse an older Node with this message
// rather than failing later on an API it lacks.

export const MINIMUM_NODE = { major: 22, minor: 12 };
export const LTS_LINES = [22, 24, 26];

/** Why this Node.js cannot run Tripline, or null when it can. */
export function nodeVersionProblem(version = process.versions.node) {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  if (major > MINIMUM_NODE.major || (major === MINIMUM_NODE.major && minor >= MINIMUM_NODE.minor)) return null;
  return (
    `Tripline needs Node.js ${MINIMUM_NODE.major}.${MINIMUM_NODE.minor} or later, on a maintained LTS line ` +
    `(${LTS_LINES.join(', ')}); this is Node.js ${version}. Install a current LTS release (https://nodejs.org) and run the command again.`
  );
}

/** Exits with the reason when this Node.js is too old. */
export function requireSupportedNode() {
  const problem = nodeVersionProblem();
  if (problem) {
    console.error(`[tripline] ${problem}`);
    process.exit(1);
  }
}
