/** `/v1/domains` (spec §4.3): create, list, get, delete, and verify through DNS. */
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { createDomainRequest, domainList, domainRecord, idParams, listQuery } from './schemas.js';
import type { DomainService } from './service.js';

const TAG = 'Domains';
const notFound = { description: 'No domain with this ID in the project.' };

export function domainRoutes(domains: DomainService): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/domains',
      summary: 'Add a sending domain; returns the DNS records to publish',
      tag: TAG,
      auth: 'key',
      scope: 'domains:write',
      body: createDomainRequest,
      responses: {
        201: { description: 'The domain, pending verification, with its DNS records.', schema: domainRecord },
        409: { description: 'The project already has this domain.' },
      },
      handler: async (req) => {
        const key = requireKey(req.principal);
        return { status: 201, body: await domains.create(key.projectId, req.body, `key:${key.keyId}`) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/domains',
      summary: 'List sending domains, newest first',
      tag: TAG,
      auth: 'key',
      scope: 'domains:read',
      query: listQuery,
      responses: { 200: { description: 'One page of domains.', schema: domainList } },
      handler: async (req) => ({
        status: 200,
        body: await domains.list(requireKey(req.principal).projectId, req.query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/domains/{id}',
      summary: 'Get a domain with its DNS records and their last check',
      tag: TAG,
      auth: 'key',
      scope: 'domains:read',
      params: idParams,
      responses: { 200: { description: 'The domain.', schema: domainRecord }, 404: notFound },
      handler: async (req) => ({
        status: 200,
        body: await domains.get(requireKey(req.principal).projectId, req.params.id),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/domains/{id}',
      summary: 'Delete a domain and its DKIM keys',
      tag: TAG,
      auth: 'key',
      scope: 'domains:write',
      params: idParams,
      responses: { 204: { description: 'Deleted.' }, 404: notFound },
      handler: async (req) => {
        const key = requireKey(req.principal);
        await domains.remove(key.projectId, req.params.id, `key:${key.keyId}`);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/domains/{id}/verify',
      summary: 'Run the DNS checks now (SPF, DKIM, DMARC, return path, tracking)',
      tag: TAG,
      auth: 'key',
      scope: 'domains:write',
      params: idParams,
      responses: {
        200: {
          description: 'The checks ran; each record carries its status and any reason.',
          schema: domainRecord,
        },
        404: notFound,
      },
      handler: async (req) => {
        const key = requireKey(req.principal);
        return { status: 200, body: await domains.verify(key.projectId, req.params.id, `key:${key.keyId}`) };
      },
    }),
  ];
}
