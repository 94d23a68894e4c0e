import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common.ts';
import { safeName } from './names.ts';

/** A skill (§2.4), plus `description` read from its SKILL.md frontmatter when present. */
export const Skill = z.object({
  id: Uuid,
  folder_id: Uuid,
  folder_name: z.string(),
  org_id: z.string(),
  org_name: z.string(),
  name: z.string(),
  is_public: z.boolean(),
  config: JsonObject.nullable(),
  template_id: z.string().nullable(),
  description: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Skill = z.infer<typeof Skill>;

export const SkillList = z.array(Skill);

const BooleanQuery = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1');

/** Query of POST /skills/{org_id}. */
export const SkillUploadQuery = z.object({
  folder: safeName(z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(200)),
  is_public: BooleanQuery.optional().default(false),
});

/** Query of GET /skills/{org_id}. */
export const SkillListQuery = z.object({
  include_public: BooleanQuery.optional().default(false),
});

export const SkillParams = z.object({ org_id: z.string().min(1), skill_id: z.string().min(1) });

/** The upload limit of §8. */
export const SKILL_ZIP_MAX_BYTES = 100 * 1024 * 1024;
