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
  ],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
