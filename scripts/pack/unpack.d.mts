/** scripts/pack/unpack.mjs: the npm package's app folder, unpacked on a version's first run. */
export function appFolder(dist: string): string;
