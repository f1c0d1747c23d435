// The folder Tripline's own files are read from at run time: the migrations,
// the schema and the embedded database's worker. In a clone that is the
// project's folder, where `npm start` and `npm run tripline` run; the npm
// package's launcher (scripts/pack/tripline.mjs) sets TRIPLINE_APP_DIR to the
// package's app folder, since its commands run from the user's own folder.
export function appDir(): string {
  return process.env.TRIPLINE_APP_DIR || process.cwd();
}
