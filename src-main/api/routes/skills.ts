import { ValidationError } from '../../base/errors.ts';
import { SKILL_ZIP_MAX_BYTES } from '../../contract/skill.ts';
import { PayloadTooLargeError } from '../../base/errors.ts';
import { messages } from '../../contract/messages.ts';
import type { OperationsTagged } from '../../contract/operations.ts';
import type { SkillService } from '../../engine/skills/skillService.ts';
import type { Handlers } from '../operationTable.ts';

// Multipart framing around the file; a request declaring more than this cannot hold a valid zip.
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** §4.4: skill zips grouped in folders. */
export function skillHandlers(skills: SkillService): Handlers<OperationsTagged<'skills'>> {
  return {
    uploadSkill: async ({ params, query, request }) => {
      const declared = Number(request.headers['content-length'] ?? 0);
      if (declared > SKILL_ZIP_MAX_BYTES + MULTIPART_OVERHEAD_BYTES)
        throw new PayloadTooLargeError(messages.skillTooLarge);
      if (!request.isMultipart())
        throw new ValidationError("body: must be multipart/form-data with a file field named 'file'");
      const part = await request.file({ limits: { fileSize: SKILL_ZIP_MAX_BYTES, files: 1 } });
      if (!part || part.fieldname !== 'file') {
        part?.file.resume();
        throw new ValidationError("body.file: is required (a .zip file in the multipart field 'file')");
      }
      // Busboy hands over an application/octet-stream part with no filename as a file whose filename is undefined.
      if (typeof part.filename !== 'string' || part.filename.length === 0) {
        part.file.resume();
        throw new ValidationError(
          'body.file: the file part has no filename (the skill is named after it: send <name>.zip)',
        );
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
    listSkills: ({ params, query }) => skills.list(params.org_id, query.include_public),
    getSkillMarkdown: async ({ params, reply }) => {
      const text = await skills.skillMarkdown(params.org_id, params.skill_id);
      // nosniff: uploaded text must never be sniffed into HTML if someone opens the URL directly.
      reply.type('text/markdown; charset=utf-8').header('x-content-type-options', 'nosniff').send(text);
    },
    deleteSkill: ({ params }) => skills.delete(params.org_id, params.skill_id),
  };
}
