import { z } from 'zod';
import { ValidationError } from '../../base/errors.ts';
import { OrgIdParam } from '../../contract/common.ts';
import { SKILL_ZIP_MAX_BYTES, Skill, SkillList, SkillListQuery, SkillParams, SkillUploadQuery } from '../../contract/skill.ts';
import { PayloadTooLargeError } from '../../base/errors.ts';
import { messages } from '../../contract/messages.ts';
import type { SkillService } from '../../engine/skills/skillService.ts';
import type { RouteTable } from '../routeTable.ts';

// Multipart framing around the file; a request declaring more than this cannot hold a valid zip.
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** §4.4: skill zips grouped in folders. */
export function addSkillRoutes(routes: RouteTable, skills: SkillService): void {
  routes.add({
    method: 'POST', url: '/skills/:org_id', tag: 'skills', summary: 'Upload a skill zip (multipart field "file", 100 MB max)', auth: 'org',
    params: OrgIdParam, query: SkillUploadQuery, multipart: { fileField: 'file' }, response: Skill,
    handler: async ({ params, query, request }) => {
      const declared = Number(request.headers['content-length'] ?? 0);
      if (declared > SKILL_ZIP_MAX_BYTES + MULTIPART_OVERHEAD_BYTES) throw new PayloadTooLargeError(messages.skillTooLarge);
      if (!request.isMultipart()) throw new ValidationError('body: must be multipart/form-data with a file field named \'file\'');
      const part = await request.file({ limits: { fileSize: SKILL_ZIP_MAX_BYTES, files: 1 } });
      if (!part || part.fieldname !== 'file') {
        part?.file.resume();
        throw new ValidationError('body.file: is required (a .zip file in the multipart field \'file\')');
      }
      // Busboy hands over an application/octet-stream part with no filename as a file whose filename is undefined.
      if (typeof part.filename !== 'string' || part.filename.length === 0) {
        part.file.resume();
        throw new ValidationError('body.file: the file part has no filename (the skill is named after it: send <name>.zip)');
      }
      return skills.upload({
        orgId: params.org_id,
        folder: query.folder,
        isPublic: query.is_public,
        filename: part.filename,
        content: part.file,
        wasTruncated: () => part.file.truncated,
      });
    },
  });
  routes.add({
    method: 'GET', url: '/skills/:org_id', tag: 'skills', summary: 'List skills (other organizations\' public skills with include_public=true)', auth: 'org',
    params: OrgIdParam, query: SkillListQuery, response: SkillList,
    handler: ({ params, query }) => skills.list(params.org_id, query.include_public),
  });
  routes.add({
    method: 'GET', url: '/skills/:org_id/:skill_id/skill-md', tag: 'skills', summary: 'The skill\'s SKILL.md as text/markdown (own skills and other organizations\' public ones)', auth: 'org',
    params: SkillParams, produces: { type: 'text/markdown', schema: z.string() },
    handler: async ({ params, reply }) => {
      const text = await skills.skillMarkdown(params.org_id, params.skill_id);
      // nosniff: uploaded text must never be sniffed into HTML if someone opens the URL directly.
      reply.type('text/markdown; charset=utf-8').header('x-content-type-options', 'nosniff').send(text);
    },
  });
  routes.add({
    method: 'DELETE', url: '/skills/:org_id/:skill_id', tag: 'skills', summary: 'Delete a skill, its files and its portal attachments', auth: 'org',
    params: SkillParams, status: 204,
    handler: ({ params }) => skills.delete(params.org_id, params.skill_id),
  });
}
