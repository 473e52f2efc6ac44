/** Config section of the web dashboard that `posthorn serve` serves beside the API. */
import { z } from 'zod';

export const dashboardSection = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe('Serve the web dashboard (the built assets of web/) from the HTTP listener.'),
    path: z
      .string()
      .regex(/^\/(?:[a-z0-9-]+\/)*$/, 'must start and end with "/", e.g. "/" or "/dashboard/"')
      .refine((path) => !/^\/(v1|oauth|health|openapi\.json|\.well-known|status)\//.test(path), {
        message: 'must not be under a path of the API',
      })
      .default('/')
      .describe(
        'URL path the dashboard is served under; "/" serves it at the root. The API stays where it is.',
      ),
    assets_dir: z
      .string()
      .default('')
      .describe('Directory of the built dashboard assets; empty means dist/web beside the code.'),
  })
  .describe(
    'The web dashboard: static assets built by scripts/setup, signed in with an HttpOnly session cookie.',
  );
