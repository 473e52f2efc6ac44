/** `POST /v1/validation` (spec §4.1): validate one address. */
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { validationRequest, validationResult } from './schemas.js';
import type { ValidationService } from './service.js';

export function validationRoutes(validation: ValidationService): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/validation',
      summary: 'Validate an address: syntax, domain (MX), disposable, role account, typo and suppression',
      tag: 'Validation',
      auth: 'key',
      scope: 'validation:use',
      // A validation changes nothing: no audit record (one per call would flood the log and cost a write).
      audit: false,
      body: validationRequest,
      responses: {
        200: {
          description:
            'One verdict with every check’s result and reason; `cached` when the address checks came from the cache. ' +
            'The recipient’s mail server is never contacted (no SMTP probing).',
          schema: validationResult,
        },
        429: {
          description: 'The project’s validations per minute (validation.requests_per_minute) are used up.',
        },
      },
      handler: async (req) => {
        const { projectId, mode } = requireKey(req.principal);
        const headers = validation.limit(projectId);
        const body = await validation.validate(projectId, req.body.email, mode);
        return { status: 200, headers: { ...headers, 'Cache-Control': 'no-store' }, body };
      },
    }),
  ];
}
