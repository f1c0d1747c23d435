import { Badge } from '@/components/ui/badge';
import { deliveryStatusLabels } from '@/lib/domain/deliveries/schemas';
import { deliveryStatusTones, type AnyDeliveryStatus } from './format';

export function DeliveryStatusBadge({ status }: { status: AnyDeliveryStatus }) {
  return (
    <Badge tone={deliveryStatusTones[status]} dot>
      {deliveryStatusLabels[status]}
    </Badge>
  );
}
