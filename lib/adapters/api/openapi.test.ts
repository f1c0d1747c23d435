import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '@/lib/adapters/api/openapi';

// The OpenAPI document and the route files describe the same API: every
// method a route file under app/api/v1 exports has an operation, and every
// operation has a route file exporting its method. A route added without
// its documentation, or documentation left behind by a removed route, fails
// here (and the hostile-input spec, which is generated from the document,
// would otherwise never reach the undocumented route).

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const apiDir = path.join(root, 'app', 'api', 'v1');
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
// The document itself is not one of its operations.
const NOT_OPERATIONS = new Set(['GET /openapi.json']);

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(file);
    return entry.name === 'route.ts' ? [file] : [];
  });
}

/** `METHOD /path/{param}` for each method a route file exports. */
function routeOperations(): string[] {
  return routeFiles(apiDir).flatMap((file) => {
    const source = fs.readFileSync(file, 'utf8');
    const exported = METHODS.filter((method) => new RegExp(`export\\s+(?:const|async\\s+function|function)\\s+${method}\\b`).test(source));
    const template = `/${path.relative(apiDir, path.dirname(file)).split(path.sep).join('/')}`.replace(/\[([^\]]+)\]/g, '{$1}');
    return exported.map((method) => `${method} ${template}`);
  });
}

function documentOperations(): string[] {
  const document = openApiDocument('http://localhost:3000') as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(document.paths).flatMap(([template, item]) =>
    METHODS.filter((method) => item[method.toLowerCase()] !== undefined).map((method) => `${method} ${template}`),
  );
}

describe('the OpenAPI document and the route files', () => {
  it('finds the route files (a scan that found nothing would pass anything)', () => {
    expect(routeOperations().length).toBeGreaterThan(40);
  });

  it('every method a route file exports has an operation in the document', () => {
    const documented = new Set(documentOperations());
    const missing = routeOperations().filter((operation) => !NOT_OPERATIONS.has(operation) && !documented.has(operation));
    expect(missing, 'add these operations to lib/adapters/api/openapi.ts').toEqual([]);
  });

  it('every operation in the document has a route file exporting its method', () => {
    const routes = new Set(routeOperations());
    const orphans = documentOperations().filter((operation) => !routes.has(operation));
    expect(orphans, 'these operations have no route').toEqual([]);
  });
});
