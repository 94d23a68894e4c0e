import { readFile } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';

/** An attached skill as the system prompt lists it. */
export interface SkillSummary {
  id: string;
  name: string;
  description: string;
}

const MAX_FILE_CHARS = 20_000;

/** The portal's skills: names and descriptions up front, files read on demand from `<skills dir>/<id>/`. */
export class SkillLibrary {
  readonly skills: SkillSummary[];
  readonly #dir: string;

  constructor(skills: SkillSummary[], skillsDir: string) {
    this.skills = skills;
    this.#dir = skillsDir;
  }

  /** A file of a skill by relative path; a path that leaves the skill's folder is refused. */
  async read(nameOrId: string, file: string): Promise<string> {
    const skill = this.skills.find((s) => s.name === nameOrId || s.id === nameOrId);
    if (!skill)
      return `no attached skill '${nameOrId}'; attached: ${this.skills.map((s) => s.name).join(', ') || 'none'}`;
    const root = join(this.#dir, skill.id);
    const path = normalize(join(root, file));
    if (!path.startsWith(root + sep)) return `'${file}' is outside the skill`;
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) return `skill '${skill.name}' has no file '${file}'`;
    // SKILL.md frontmatter repeats the name and description the model already has.
    const body = file === 'SKILL.md' ? text.replace(/^---\n[\s\S]*?\n---\n/, '') : text;
    return body.slice(0, MAX_FILE_CHARS);
  }
}
