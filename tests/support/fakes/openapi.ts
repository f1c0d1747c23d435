import fs from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// A provider's published OpenAPI description, for the fakes that validate
// every request and response against it (fakes/github.ts, fakes/stripe.ts):
// read once when first used, every internal reference made absolute (so a
// fragment compiles on its own), validators compiled on demand and kept.

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export type Json = Record<string, unknown>;
export type Operation = { method: string; template: string; pattern: RegExp; names: string[]; spec: Json };
/** Responses are validated as sent; request parameters and form bodies (text) with their types coerced. */
export type ValidatorKind = 'responses' | 'requests';

/** One injected answer for the next request(s) whose path (fakes/github.ts) or method and path (fakes/stripe.ts) match. */
export type Fault = {
  match?: RegExp;
  status: number;
  body?: string;
  headers?: Record<string, string>;
  times?: number;
  /** Awaited before the fault is answered: what a test has happen meanwhile (another instance's change, say). */
  before?: () => Promise<void>;
};

/** The first fault matching `key`, counted off (gone after `times`, default once); undefined when none. */
export function takeFault(faults: Fault[], key: string): Fault | undefined {
  const fault = faults.find((f) => !f.match || f.match.test(key));
  if (fault && (fault.times = (fault.times ?? 1) - 1) <= 0) faults.splice(faults.indexOf(fault), 1);
  return fault;
}

export function openApiDescription(file: string, name: string, options: { transform?: (spec: unknown) => unknown } = {}) {
  let loaded: { spec: Json; ajv: Record<ValidatorKind, Ajv> } | undefined;
  const load = () => {
    if (loaded) return loaded;
    const text = fs.readFileSync(file, 'utf8').replaceAll('"#/components/', `"${name}#/components/`);
    const parsed = JSON.parse(text) as unknown;
    const spec = (options.transform ? options.transform(parsed) : parsed) as Json;
    const make = (coerceTypes: false | 'array') => {
      const ajv = new Ajv({ strict: false, allErrors: true, logger: false, validateSchema: false, coerceTypes });
      addFormats(ajv);
      ajv.addSchema({ components: spec.components } as Json, name);
      return ajv;
    };
    // The request validator is made only when asked for: two copies of a large description cost seconds.
    let requests: Ajv | undefined;
    loaded = {
      spec,
      ajv: {
        responses: make(false),
        get requests() {
          return (requests ??= make('array'));
        },
      },
    };
    return loaded;
  };

  const compiled = new Map<string, ValidateFunction>();
  const validatorFor = (key: string, schema: unknown, kind: ValidatorKind = 'responses'): ValidateFunction => {
    let validate = compiled.get(`${kind} ${key}`);
    if (!validate) {
      validate = load().ajv[kind].compile(schema as Json);
      compiled.set(`${kind} ${key}`, validate);
    }
    return validate;
  };

  const prefix = new RegExp(`^${name}#/`);
  const deref = (node: unknown): Json => {
    let value = node as Json;
    while (value && typeof value.$ref === 'string') {
      const pointer = (value.$ref as string).replace(prefix, '').split('/');
      value = pointer.reduce<unknown>((at, part) => (at as Json)[part.replaceAll('~1', '/').replaceAll('~0', '~')], load().spec) as Json;
    }
    return value;
  };

  /** The operations a fake serves, each with its path's pattern; one the description lacks is an error. */
  const operations = (supported: ReadonlyArray<readonly [string, string]>, provider: string): Operation[] => {
    const paths = load().spec.paths as Record<string, Record<string, Json>>;
    return supported.map(([method, template]) => {
      const spec = paths[template]?.[method];
      if (!spec) throw new Error(`${provider}'s description has no ${method.toUpperCase()} ${template}`);
      const names: string[] = [];
      const pattern = new RegExp(`^${template.replace(/\{(\w+)\}/g, (_, param: string) => (names.push(param), '([^/]+)'))}$`);
      return { method, template, pattern, names, spec };
    });
  };

  return { validatorFor, deref, operations };
}
