import { useRef, useState, type FormEvent } from 'react';
import type { Skill } from '../../src-main/contract/skill.ts';
import { call, errorDetail, text, upload } from '../api.ts';
import { ConfirmButton, Empty, ErrorNote, Loading, PageHeader } from '../components/ui.tsx';
import { formatWhen } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { useConsole } from '../store.ts';

/** Skills: zipped instructions (SKILL.md and files) that portals attach for their agents. */
export function SkillsPage() {
  const org = useConsole((s) => s.org);
  const showToast = useConsole((s) => s.showToast);
  const skills = useResource(
    () => call('listSkills', { params: { org_id: org }, query: { include_public: 'true' } }),
    org,
  );
  const [folder, setFolder] = useState('default');
  const [isPublic, setIsPublic] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const send = useAction();
  const action = useAction();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const file = fileInput.current?.files?.[0];
    if (!file) return;
    void send.run(async () => {
      const form = new FormData();
      form.append('file', file);
      const skill = await upload(form, 'uploadSkill', {
        params: { org_id: org },
        query: { folder: folder.trim(), is_public: isPublic ? 'true' : 'false' },
      });
      showToast(`Skill ${skill.name} uploaded`);
      if (fileInput.current) fileInput.current.value = '';
      skills.reload();
    });
  };
  const remove = (skill: Skill) =>
    action.run(async () => {
      await call('deleteSkill', { params: { org_id: org, skill_id: skill.id } });
      showToast(`Skill ${skill.name} deleted`);
      skills.reload();
    });
  const list = skills.data ?? [];
  return (
    <section className="page">
      <PageHeader
        title="Skills"
        subtitle="A skill is a .zip of instructions (a SKILL.md, or a README): know-how a portal's agent can use."
      />
      <form className="panel inline-form wrap" onSubmit={submit} aria-label="Upload a skill">
        <label className="grow">
          Skill zip
          <input ref={fileInput} type="file" accept=".zip,application/zip" required />
        </label>
        <label>
          Folder
          <input value={folder} onChange={(e) => setFolder(e.target.value)} required />
        </label>
        <label className="check">
          <input type="checkbox" checked={isPublic} onChange={(e) => setIsPublic(e.target.checked)} />
          Public (other organizations can use it)
        </label>
        <button type="submit" className="primary" disabled={send.busy}>
          {send.busy ? 'Uploading…' : 'Upload'}
        </button>
      </form>
      <ErrorNote detail={send.error} title="Not uploaded:" />
      <ErrorNote detail={action.error} />
      <ErrorNote detail={skills.error} />
      {skills.loading && <Loading what="skills" />}
      {skills.data && list.length === 0 && (
        <Empty title="No skills yet">
          <p>
            Zip a folder of instructions and upload it above. A <code>SKILL.md</code> (with <code>name</code> and{' '}
            <code>description</code> in its front matter) is optional; without one the description is the README's first
            heading.
          </p>
        </Empty>
      )}
      <div className="cards">
        {list.map((skill) => (
          <SkillCard key={skill.id} skill={skill} org={org} onDelete={() => void remove(skill)} />
        ))}
      </div>
    </section>
  );
}

/** One skill; "Show SKILL.md" fetches the file on demand and shows it as plain text. */
function SkillCard(props: { skill: Skill; org: string; onDelete: () => void }) {
  const { skill, org } = props;
  const [open, setOpen] = useState(false);
  const [markdown, setMarkdown] = useState<{ text?: string; error?: string }>();
  const toggle = () => {
    const next = !open;
    setOpen(next);
    // Loaded once; a failed load is tried again at the next opening.
    if (!next || markdown?.text !== undefined) return;
    setMarkdown(undefined);
    text('getSkillMarkdown', { params: { org_id: org, skill_id: skill.id } }).then(
      (body) => setMarkdown({ text: body }),
      (failure: unknown) => setMarkdown({ error: errorDetail(failure) }),
    );
  };
  const panelId = `skill-md-${skill.id}`;
  return (
    <article className={open ? 'card static expanded' : 'card static'} aria-label={skill.name}>
      <span className="card-title">{skill.name}</span>
      <span className="card-meta">
        {skill.folder_name} ·{' '}
        {skill.org_id === org ? (skill.is_public ? 'public' : 'private') : `shared by ${skill.org_name}`} ·{' '}
        {formatWhen(skill.updated_at)}
      </span>
      <span className="card-task">{skill.description || 'No description.'}</span>
      {open && (
        <div id={panelId}>
          {markdown === undefined && <Loading what="SKILL.md" />}
          <ErrorNote detail={markdown?.error} />
          {/* A text child, never innerHTML: whatever the uploaded file holds shows as characters. */}
          {markdown?.text !== undefined && (
            <figure className="json-block" aria-label={`SKILL.md of ${skill.name}`}>
              <pre className="skill-md">{markdown.text}</pre>
            </figure>
          )}
        </div>
      )}
      <span className="card-actions">
        <button type="button" className="ghost" aria-expanded={open} aria-controls={panelId} onClick={toggle}>
          {open ? 'Hide SKILL.md' : 'Show SKILL.md'}
        </button>
        {skill.org_id === org && <ConfirmButton label="Delete" confirm="Delete skill" onConfirm={props.onDelete} />}
      </span>
    </article>
  );
}
