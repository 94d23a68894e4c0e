import { useState, type FormEvent } from 'react';
import type { Portal } from '../../src-main/contract/portal.ts';
import { call } from '../api.ts';
import { SchemaEditor, schemaTextIsValid } from '../components/SchemaEditor.tsx';
import { ErrorNote } from '../components/ui.tsx';
import { useAction, useResource } from '../hooks.ts';
import { useConsole } from '../store.ts';

const EXAMPLE_SCHEMA = `{
  "type": "object",
  "properties": {
    "full_name": { "type": "string", "title": "Full name" },
    "email": { "type": "string", "format": "email", "title": "Email" }
  },
  "required": ["full_name", "email"]
}`;

const pretty = (value: unknown): string => JSON.stringify(value, null, 2);

/** Create or edit a portal; the server's 422 detail is shown as it is. */
export function PortalEditor(props: { portal?: Portal; onSaved: (portal: Portal) => void }) {
  const org = useConsole((s) => s.org);
  const existing = props.portal;
  const [endpoint, setEndpoint] = useState(existing?.endpoint_name ?? '');
  const [startUrl, setStartUrl] = useState(existing?.start_url ?? '');
  const [task, setTask] = useState(existing?.task ?? '');
  const [formSchema, setFormSchema] = useState(existing ? pretty(existing.form_schema) : EXAMPLE_SCHEMA);
  const [outputSchema, setOutputSchema] = useState(existing?.output_schema ? pretty(existing.output_schema) : '');
  const [webhookUrl, setWebhookUrl] = useState(existing?.webhook_url ?? '');
  const [profileId, setProfileId] = useState(existing?.profile_id ?? '');
  const [skillIds, setSkillIds] = useState<string[]>(existing?.skills.map((s) => s.id) ?? []);
  const [assistModel, setAssistModel] = useState(existing?.assist_model ?? '');
  const profiles = useResource(() => call('listProfiles', { params: { org_id: org } }), org);
  const skills = useResource(() => call('listSkills', { params: { org_id: org }, query: { include_public: 'true' } }), org);
  const save = useAction();

  const schemasValid = schemaTextIsValid(formSchema, 'form') && schemaTextIsValid(outputSchema, 'output');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.run(async () => {
      const body = {
        start_url: startUrl.trim(),
        task,
        form_schema: formSchema.trim() === '' ? {} : (JSON.parse(formSchema) as Record<string, unknown>),
        output_schema: outputSchema.trim() === '' ? null : (JSON.parse(outputSchema) as Record<string, unknown>),
        webhook_url: webhookUrl.trim() === '' ? null : webhookUrl.trim(),
        profile_id: profileId === '' ? null : profileId,
        skill_ids: skillIds,
        assist_model: assistModel.trim() === '' ? null : assistModel.trim(),
      };
      const saved = existing
        ? await call('updatePortal', { params: { org_id: org, endpoint_name: existing.endpoint_name }, body })
        : await call('createPortal', { params: { org_id: org }, body: { endpoint_name: endpoint.trim(), ...body } });
      props.onSaved(saved);
    });
  };

  return (
    <form className="editor" onSubmit={submit} aria-label={existing ? 'Edit portal' : 'New portal'}>
      <div className="form-grid">
        <div className="field">
          <label htmlFor="portal-endpoint">Endpoint name</label>
          <input id="portal-endpoint" value={endpoint} onChange={(e) => setEndpoint(e.target.value)} disabled={existing !== undefined} required placeholder="e.g. visa-application" />
          <span className="hint">{existing ? 'It names the portal in URLs and cannot change.' : 'Letters, digits, - and _; used in API paths.'}</span>
        </div>
        <div className="field">
          <label htmlFor="portal-start-url">Start URL</label>
          <input id="portal-start-url" type="url" value={startUrl} onChange={(e) => setStartUrl(e.target.value)} required placeholder="https://example.org/apply" />
        </div>
        <div className="field span-2">
          <label htmlFor="portal-task">Task</label>
          <textarea id="portal-task" rows={3} value={task} onChange={(e) => setTask(e.target.value)} required placeholder="Fill in the application with the form data and submit it." />
        </div>
      </div>
      <SchemaEditor id="portal-form-schema" label="Form schema (JSON Schema of the form data a job takes)" text={formSchema} onChange={setFormSchema} kind="form" />
      <details className="more" open={outputSchema !== '' || webhookUrl !== '' || profileId !== '' || skillIds.length > 0 || assistModel !== ''}>
        <summary>Output schema, webhook, profile, skills and assist model</summary>
        <SchemaEditor id="portal-output-schema" label="Output schema (optional: the result's shape)" text={outputSchema} onChange={setOutputSchema} kind="output" />
        <div className="form-grid">
          <div className="field">
            <label htmlFor="portal-webhook">Webhook URL (optional)</label>
            <input id="portal-webhook" type="url" value={webhookUrl} onChange={(e) => setWebhookUrl(e.target.value)} placeholder="https://example.org/hooks/portico" />
          </div>
          <div className="field">
            <label htmlFor="portal-profile">Browser profile</label>
            <select id="portal-profile" value={profileId} onChange={(e) => setProfileId(e.target.value)}>
              <option value="">None (a fresh browser every job)</option>
              {(profiles.data ?? []).map((p) => (
                <option key={p.id} value={p.id}>{p.name}</option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="portal-assist-model">Assist model (maps unmatched fields only)</label>
            <input id="portal-assist-model" value={assistModel} onChange={(e) => setAssistModel(e.target.value)} placeholder="e.g. anthropic:claude-haiku-4-5" />
            <span className="hint">Empty: off. builtin:autofill may ask it which field a key its rules leave unmatched belongs in — never for values; once per page, then cached.</span>
          </div>
        </div>
        {(skills.data ?? []).length > 0 && (
          <fieldset className="field">
            <legend>Skills</legend>
            {(skills.data ?? []).map((skill) => (
              <label key={skill.id} className="check">
                <input type="checkbox" checked={skillIds.includes(skill.id)} onChange={(e) => setSkillIds(e.target.checked ? [...skillIds, skill.id] : skillIds.filter((id) => id !== skill.id))} />
                {skill.folder_name}/{skill.name}
              </label>
            ))}
          </fieldset>
        )}
      </details>
      <ErrorNote detail={save.error} title="Not saved:" />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={save.busy || !schemasValid}>{existing ? 'Save changes' : 'Create portal'}</button>
        {!schemasValid && <span className="muted">Fix the schema first.</span>}
      </div>
    </form>
  );
}
