/** `/v1/audiences` and their contacts (spec §4.4, §2.10), with what users of Resend and listmonk expect beside them. */
import { Transform } from 'node:stream';
import { AppError } from '../platform/http/errors.js';
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { importFormat } from './import.js';
import {
  audienceList,
  audienceParams,
  audienceRecord,
  audienceRequest,
  audienceUpdate,
  contactList,
  contactListQuery,
  contactParams,
  contactRecord,
  contactRequest,
  contactUpdate,
  importReport,
  listQuery,
} from './schemas.js';
import type { AudienceService } from './service.js';

const TAG = 'Audiences';
const READ = 'audiences:read';
const WRITE = 'audiences:write';
const noAudience = { description: 'No audience with this ID in the project.' };
const noContact = { description: 'No such audience, or no such contact in it.' };

/** Counts bytes as they pass and fails the stream past `limit` (an import's upload limit). */
function limited(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) {
        done(
          new AppError(
            'payload_too_large',
            `The upload is larger than the limit of ${limit} bytes (broadcasts.import_max_bytes).`,
          ),
        );
        return;
      }
      done(null, chunk);
    },
  });
}

export function audienceRoutes(audiences: AudienceService, options: { importMaxBytes: number }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/audiences',
      summary: 'List audiences, newest first',
      tag: TAG,
      auth: 'key',
      scope: READ,
      query: listQuery,
      responses: { 200: { description: 'One page of audiences.', schema: audienceList } },
      handler: async (req) => ({
        status: 200,
        body: await audiences.list(requireKey(req.principal).projectId, req.query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/audiences',
      summary: 'Create an audience',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      body: audienceRequest,
      responses: { 201: { description: 'The audience.', schema: audienceRecord } },
      handler: async (req) => ({
        status: 201,
        body: await audiences.create(requireKey(req.principal).projectId, req.body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/audiences/{id}',
      summary: 'Get an audience with its contact counts',
      tag: TAG,
      auth: 'key',
      scope: READ,
      params: audienceParams,
      responses: { 200: { description: 'The audience.', schema: audienceRecord }, 404: noAudience },
      handler: async (req) => ({
        status: 200,
        body: await audiences.get(requireKey(req.principal).projectId, req.params.id),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/audiences/{id}',
      summary: 'Rename an audience or change its description',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: audienceParams,
      body: audienceUpdate,
      responses: { 200: { description: 'The audience.', schema: audienceRecord }, 404: noAudience },
      handler: async (req) => ({
        status: 200,
        body: await audiences.update(requireKey(req.principal).projectId, req.params.id, req.body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/audiences/{id}',
      summary: 'Delete an audience, its contacts and their consent history',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: audienceParams,
      responses: {
        204: { description: 'Deleted.' },
        404: noAudience,
        409: { description: 'A broadcast to the audience is scheduled or sending.' },
      },
      handler: async (req) => {
        await audiences.remove(requireKey(req.principal).projectId, req.params.id);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/audiences/{id}/contacts',
      summary: "List an audience's contacts in the order they were added",
      tag: TAG,
      auth: 'key',
      scope: READ,
      params: audienceParams,
      query: contactListQuery,
      responses: { 200: { description: 'One page of contacts.', schema: contactList }, 404: noAudience },
      handler: async (req) => ({
        status: 200,
        body: await audiences.listContacts(requireKey(req.principal).projectId, req.params.id, req.query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/audiences/{id}/contacts',
      summary: 'Add a contact with recorded consent, or subscribe one again',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: audienceParams,
      body: contactRequest,
      responses: {
        201: {
          description:
            'The contact: added, subscribed again, or its consent renewed (the history keeps each).',
          schema: contactRecord,
        },
        404: noAudience,
      },
      handler: async (req) => {
        const added = await audiences.addContact(
          requireKey(req.principal).projectId,
          req.params.id,
          req.body,
        );
        return { status: 201, body: added.contact };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/audiences/{id}/contacts/import',
      summary: 'Import many contacts at once (CSV or JSON lines, streamed), each with its consent',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: audienceParams,
      stream: {
        contentTypes: ['text/csv', 'application/x-ndjson'],
        description:
          'CSV with a header line (email, consent_source, consent_at, first_name, last_name; other columns become metadata), or one JSON contact per line, each as the body of POST .../contacts.',
      },
      responses: {
        200: {
          description: 'What was imported, and each refused row with the reason.',
          schema: importReport,
        },
        404: noAudience,
        413: { description: 'The upload is larger than broadcasts.import_max_bytes.' },
        415: { description: 'Content-Type is neither text/csv nor application/x-ndjson.' },
      },
      handler: async (req) => {
        const { projectId } = requireKey(req.principal);
        const format = importFormat(req.ctx.get('content-type'));
        if (format === undefined) {
          throw new AppError(
            'unsupported_media_type',
            'Content-Type must be text/csv (with a header line) or application/x-ndjson (one contact per line).',
          );
        }
        const declared = Number(req.ctx.get('content-length') || Number.NaN);
        if (declared > options.importMaxBytes) {
          req.ctx.req.resume();
          throw new AppError(
            'payload_too_large',
            `The upload is larger than the limit of ${options.importMaxBytes} bytes (broadcasts.import_max_bytes).`,
            { headers: { Connection: 'close' } },
          );
        }
        if (!(await audiences.exists(projectId, req.params.id))) {
          req.ctx.req.resume();
          throw new AppError('not_found', `Audience ${req.params.id} was not found.`);
        }
        const input = req.ctx.req.pipe(limited(options.importMaxBytes));
        req.ctx.req.on('error', (error) => input.destroy(error));
        const report = await audiences.importContacts(projectId, req.params.id, input, format);
        return { status: 200, body: report };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/audiences/{id}/contacts/{contact}',
      summary: 'Get a contact with its history of consent and unsubscription',
      tag: TAG,
      auth: 'key',
      scope: READ,
      params: contactParams,
      responses: { 200: { description: 'The contact.', schema: contactRecord }, 404: noContact },
      handler: async (req) => ({
        status: 200,
        body: await audiences.getContact(
          requireKey(req.principal).projectId,
          req.params.id,
          req.params.contact,
        ),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/audiences/{id}/contacts/{contact}',
      summary: "Update a contact's names or metadata",
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: contactParams,
      body: contactUpdate,
      responses: { 200: { description: 'The contact.', schema: contactRecord }, 404: noContact },
      handler: async (req) => ({
        status: 200,
        body: await audiences.updateContact(
          requireKey(req.principal).projectId,
          req.params.id,
          req.params.contact,
          req.body,
        ),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/audiences/{id}/contacts/{contact}',
      summary: 'Remove a contact and its history',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: contactParams,
      responses: { 204: { description: 'Removed.' }, 404: noContact },
      handler: async (req) => {
        await audiences.removeContact(requireKey(req.principal).projectId, req.params.id, req.params.contact);
        return { status: 204 };
      },
    }),
  ];
}
