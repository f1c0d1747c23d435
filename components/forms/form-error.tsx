import { Alert } from '@/components/ui/alert';

/** The message above a form for errors that belong to no single field. */
export function FormError({ message }: { message?: string | null }) {
  if (!message) return null;
  return (
    <Alert tone="danger" role="alert">
      {message}
    </Alert>
  );
}
