import { EmptyState } from '@/components/ui/empty-state';

/** Shown instead of an admin-only (or editor-only) page, so a member who follows a link learns why there is nothing to do. */
export function AdminRequired({ factoryName, task, role = 'admin' }: { factoryName: string; task: string; role?: 'admin' | 'editor' }) {
  return (
    <EmptyState
      bordered
      icon={
        <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
          <rect x="3" y="11" width="18" height="11" rx="2" />
          <path d="M7 11V7a5 5 0 0 1 10 0v4" />
        </svg>
      }
      title={`You need the ${role} role`}
      description={`Only ${role === 'admin' ? 'admins' : 'editors and admins'} of ${factoryName} can ${task}. Ask an admin to do it for you or to change your role on the Members page.`}
    />
  );
}
