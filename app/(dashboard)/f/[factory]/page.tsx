import { redirect } from 'next/navigation';

// GET /f/[factory]: the factory opens on its automations
export default async function FactoryHome({ params }: { params: Promise<{ factory: string }> }) {
  redirect(`/f/${(await params).factory}/automations`);
}
