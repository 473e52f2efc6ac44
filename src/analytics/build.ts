/** Builds the analytics capability from the kernel (composition root helper). */
import type { Kernel } from '../kernel.js';
import { createAnalyticsProjector } from './projector.js';
import { createAnalyticsService } from './service.js';
import { createAnalyticsStore } from './store.js';

export function buildAnalytics(kernel: Kernel) {
  const projector = createAnalyticsProjector(
    kernel.store.sqlite,
    kernel.log.child({ capability: 'analytics' }),
  );
  return createAnalyticsService({ store: createAnalyticsStore(kernel.store.sqlite), projector });
}
