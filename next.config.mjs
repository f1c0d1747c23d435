/** @type {import('next').NextConfig} */
const nextConfig = {
  // Packages that load native or wasm files at run time stay out of the bundle.
  serverExternalPackages: [
    '@electric-sql/pglite',
    'pglite-prisma-adapter',
    '@prisma/adapter-pg',
    '@prisma/client',
    '@prisma/schema-engine-wasm',
    '@prisma/driver-adapter-utils',
    '@node-rs/argon2',
    'pg',
    'prom-client',
  ],
  // A second build folder lets two builds (e.g. tests of two checkouts) coexist.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // The npm package (scripts/pack.mjs) serves Next's standalone output: the
  // build plus only the files of node_modules that the server loads.
  output: process.env.TRIPLINE_STANDALONE === '1' ? 'standalone' : undefined,
  // The server resolves some files from a folder it is given at run time (the
  // migrations, the embedded database's worker), so the file trace takes the
  // whole project folder; these parts of it are never read by a server. Without
  // this, a build in a checkout whose test-results/ holds the end-to-end
  // databases traced (and a standalone build copied) gigabytes.
  outputFileTracingExcludes: {
    // Next matches these anywhere in a path (node_modules too): only names no package uses.
    '*': ['test-results/**', 'playwright-report/**', '.data/**'],
  },
  poweredByHeader: false,
  // Server action bodies: Next's default limit, stated so that it stays one
  // decision with the management API's 1 MB (lib/adapters/api/handler.ts readJson).
  experimental: {
    serverActions: { bodySizeLimit: '1mb' },
    // Turbopack's cache on disk made every first build (a fresh clone's first
    // `npm start`, CI's build) about 9 s slower to save about 13 s on a later
    // rebuild: docs/decisions/0090.
    turbopackFileSystemCacheForBuild: false,
    // Next loads every route's code when it starts by default; Tripline loads
    // a route's code on its first request: idle, the server is about 22 MB
    // smaller on PostgreSQL and 10 MB on the embedded database, for a first
    // request to each route some 100 ms slower (docs/decisions/0092).
    preloadEntriesOnStart: false,
  },
  typedRoutes: false,
  // `npm test` type-checks the whole project (tsc --noEmit) as a step of its
  // own before it builds; the build's own check repeated it, about 30 s of
  // every build (CI's, and each first `npm start`). docs/decisions/0062.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
