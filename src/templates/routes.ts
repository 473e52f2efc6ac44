/** `/v1/templates` (spec §4.2): CRUD, version history, publish, rollback and the check. */
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import {
  checkQuery,
  checkResult,
  idParams,
  listQuery,
  templateList,
  templateRecord,
  templateRequest,
  versionList,
  versionParams,
} from './schemas.js';
import type { TemplateService } from './service.js';

const TAG = 'Templates';
const READ = 'templates:read';
const WRITE = 'templates:write';
const notFound = { description: 'No template with this ID or slug in the project.' };

export function templateRoutes(templates: TemplateService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/templates',
      summary: 'List templates, newest first',
      tag: TAG,
      auth: 'key',
      scope: READ,
      query: listQuery,
      responses: { 200: { description: 'One page of templates.', schema: templateList } },
      handler: async (req) => ({
        status: 200,
        body: await templates.list(requireKey(req.principal).projectId, req.query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/templates',
      summary: 'Create a template; version 1 is a draft',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      body: templateRequest,
      responses: {
        201: { description: 'The draft template.', schema: templateRecord },
        409: { description: 'The slug is already used in this project.' },
      },
      handler: async (req) => ({
        status: 201,
        body: await templates.create(requireKey(req.principal).projectId, req.body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/templates/{id}',
      summary: 'Get a template with its current draft',
      tag: TAG,
      auth: 'key',
      scope: READ,
      params: idParams,
      responses: { 200: { description: 'The template.', schema: templateRecord }, 404: notFound },
      handler: async (req) => ({
        status: 200,
        body: await templates.get(requireKey(req.principal).projectId, req.params.id),
      }),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/templates/{id}',
      summary: 'Save a new immutable draft version',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: idParams,
      body: templateRequest,
      responses: {
        200: { description: 'The template with its new draft version.', schema: templateRecord },
        404: notFound,
        409: { description: 'The slug is already used in this project.' },
      },
      handler: async (req) => ({
        status: 200,
        body: await templates.update(requireKey(req.principal).projectId, req.params.id, req.body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/templates/{id}',
      summary: 'Delete a template and all its versions',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: idParams,
      responses: { 204: { description: 'Deleted.' }, 404: notFound },
      handler: async (req) => {
        await templates.remove(requireKey(req.principal).projectId, req.params.id);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/templates/{id}/versions',
      summary: 'Version history, newest first, with the published version',
      tag: TAG,
      auth: 'key',
      scope: READ,
      params: idParams,
      query: listQuery,
      responses: { 200: { description: 'The versions.', schema: versionList }, 404: notFound },
      handler: async (req) => ({
        status: 200,
        body: await templates.versions(requireKey(req.principal).projectId, req.params.id, req.query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/templates/{id}/check',
      summary: 'Check links, images, size, client compatibility, domains and tracking DNS',
      tag: TAG,
      auth: 'key',
      scope: READ,
      params: idParams,
      query: checkQuery,
      responses: {
        200: { description: 'The check result (spec §2.7).', schema: checkResult },
        404: { description: 'No such template or version.' },
      },
      handler: async (req) => ({
        status: 200,
        body: await templates.check(requireKey(req.principal).projectId, req.params.id, req.query.version),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/templates/{id}/publish',
      summary: 'Publish the current draft; sends use it from now on',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: idParams,
      responses: { 200: { description: 'The published template.', schema: templateRecord }, 404: notFound },
      handler: async (req) => ({
        status: 200,
        body: await templates.publish(requireKey(req.principal).projectId, req.params.id),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/templates/{id}/rollback/{version}',
      summary: 'Make sends use an earlier version again',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: versionParams,
      responses: {
        200: { description: 'The template, now publishing that version.', schema: templateRecord },
        404: { description: 'No such template or version.' },
      },
      handler: async (req) => ({
        status: 200,
        body: await templates.rollback(
          requireKey(req.principal).projectId,
          req.params.id,
          req.params.version,
        ),
      }),
    }),
  ];
}
