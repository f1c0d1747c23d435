import 'server-only';
import type { ProviderKind, ProviderModule } from '@/lib/domain/connections/provider';
import { github } from '@/lib/domain/connections/providers/github';
import { gitlab } from '@/lib/domain/connections/providers/gitlab';

// Every provider Tripline can connect, once. Adding one (Paddle, Resend) is
// its file in this folder, a line here, its kind in the ConnectionProvider
// enum (a migration) and in schemas.ts's lists, and a row in
// docs/providers.md.

const MODULES: readonly ProviderModule[] = [github, gitlab];

const BY_KIND = new Map<ProviderKind, ProviderModule>(MODULES.flatMap((module) => module.kinds.map((kind) => [kind, module] as const)));

/** The provider module serving `kind`; undefined for a kind whose adapter does not exist yet. */
export const providerModule = (kind: ProviderKind): ProviderModule | undefined => BY_KIND.get(kind);
