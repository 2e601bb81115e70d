// The vision-click service, loaded on first use: the core server registers the command and the route at
// start without loading PNG, OCR or model-client code (start-up time); the first request imports it.
import type { VisionClickDeps, VisionClickService } from './vision-click.service.ts';
import type { VisionRequest, VisionResult } from './types.ts';

export interface LazyVisionClick {
  run(request: VisionRequest): Promise<VisionResult>;
  close(): Promise<void>;
}

export function lazyVisionClickService(deps: VisionClickDeps): LazyVisionClick {
  let service: Promise<VisionClickService> | null = null;
  const load = () => (service ??= import('./vision-click.service.ts').then((m) => m.createVisionClickService(deps)));
  return {
    async run(request) {
      return (await load()).run(request);
    },
    async close() {
      if (service) await (await service).close();
    },
  };
}
