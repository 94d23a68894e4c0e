import { useState, type FormEvent } from 'react';
import type { Portal } from '../../src-main/contract/portal.ts';
import { ApiError, call } from '../api.ts';
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

/** The editor's fields by their API name, as the form names them. */
const FIELD_LABELS = {
  endpoint_name: 'Endpoint name',
  start_url: 'Start URL',
  task: 'Task',
  form_schema: 'Form schema',
  output_schema: 'Output schema',
  webhook_url: 'Webhook URL',
  profile_id: 'Browser profile',
  skill_ids: 'Skills',
  assist_model: 'Assist model',
} as const;
type Field = keyof typeof FIELD_LABELS;
const ADVANCED: readonly Field[] = ['output_schema', 'webhook_url', 'profile_id', 'skill_ids', 'assist_model'];

/**
 * A 422 detail such as `body.form_schema: strict mode: unknown keyword "x"` as one message per field, in
 * words ("The server refused …" is left to where it shows); undefined when it names no field of this form.
 */
export function fieldErrorsOf(detail: string): Partial<Record<Field, string>> | undefined {
  const errors: Partial<Record<Field, string>> = {};
  for (const part of detail.split(/;\s+(?=body\.)/)) {
    const match = /^body\.(\w+)(?:[.[][^:]*)?:\s*([\s\S]*)$/.exec(part.trim());
    const field = match?.[1];
    if (!match || field === undefined || !(field in FIELD_LABELS)) return undefined;
    // Ajv's schema paths read as dotted field paths: `data/properties/n/minLength` → `properties.n.minLength`.
    const message = (match[2] ?? '')
      .trim()
      .replace(/schema is invalid: data\//g, '')
      .replace(/\b(properties(?:\/[\w-]+)+)/g, (path) => path.replace(/\//g, '.'));
    errors[field as Field] = /^(must|is|are|should|cannot|has|does)\b/.test(message)
      ? `${FIELD_LABELS[field as Field]} ${message}.`
      : `${FIELD_LABELS[field as Field]}: ${message}`;
  }
  return errors;
}

/** A server refusal shown under the field it is about. */
function FieldError(props: { id: string; message: string | undefined }) {
  if (props.message === undefined) return null;
  return (
    <span id={props.id} className="field-error" role="alert">
      {props.message}
    </span>
  );
}

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
  const skills = useResource(
    () => call('listSkills', { params: { org_id: org }, query: { include_public: 'true' } }),
    org,
  );
  const save = useAction();
  // The server's refusals by field, each with the text it refused (a schema's verdict holds only for that text).
  const [refused, setRefused] = useState<{
    errors: Partial<Record<Field, string>>;
    formSchema: string;
    outputSchema: string;
  }>();
  // Open when anything in it is set; after that the person decides (clearing a field does not fold it away).
  const [moreOpen, setMoreOpen] = useState(
    outputSchema !== '' || webhookUrl !== '' || profileId !== '' || skillIds.length > 0 || assistModel !== '',
  );
  const errorOf = (field: Field): string | undefined => {
    if (field === 'form_schema' && refused?.formSchema !== formSchema) return undefined;
    if (field === 'output_schema' && refused?.outputSchema !== outputSchema) return undefined;
    return refused?.errors[field];
  };
  const invalid = (field: Field, id: string) =>
    errorOf(field) !== undefined ? { 'aria-invalid': true, 'aria-describedby': `${id}-error` } : {};

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
      setRefused(undefined);
      try {
        const saved = existing
          ? await call('updatePortal', { params: { org_id: org, endpoint_name: existing.endpoint_name }, body })
          : await call('createPortal', { params: { org_id: org }, body: { endpoint_name: endpoint.trim(), ...body } });
        props.onSaved(saved);
      } catch (failure) {
        const errors =
          failure instanceof ApiError && failure.status === 422 ? fieldErrorsOf(failure.message) : undefined;
        if (errors === undefined) throw failure;
        setRefused({ errors, formSchema, outputSchema });
        if (ADVANCED.some((field) => errors[field] !== undefined)) setMoreOpen(true);
        throw new Error(
          `${Object.keys(errors).length === 1 ? 'one field needs' : 'some fields need'} a change; see the message under it.`,
        );
      }
    });
  };

  return (
    <form className="editor" onSubmit={submit} aria-label={existing ? 'Edit portal' : 'New portal'}>
      <div className="form-grid">
        <div className="field">
          <label htmlFor="portal-endpoint">Endpoint name</label>
          <input
            id="portal-endpoint"
            value={endpoint}
            onChange={(e) => setEndpoint(e.target.value)}
            disabled={existing !== undefined}
            required
            placeholder="e.g. visa-application"
            {...invalid('endpoint_name', 'portal-endpoint')}
          />
          <FieldError id="portal-endpoint-error" message={errorOf('endpoint_name')} />
          <span className="hint">
            {existing
              ? 'It names the portal in URLs and cannot change.'
              : 'Letters, digits, - and _; used in API paths.'}
          </span>
        </div>
        <div className="field">
          <label htmlFor="portal-start-url">Start URL</label>
          <input
            id="portal-start-url"
            type="url"
            value={startUrl}
            onChange={(e) => setStartUrl(e.target.value)}
            required
            placeholder="https://example.org/apply"
            {...invalid('start_url', 'portal-start-url')}
          />
          <FieldError id="portal-start-url-error" message={errorOf('start_url')} />
        </div>
        <div className="field span-2">
          <label htmlFor="portal-task">Task</label>
          <textarea
            id="portal-task"
            rows={3}
            value={task}
            onChange={(e) => setTask(e.target.value)}
            required
            placeholder="Fill in the application with the form data and submit it."
            {...invalid('task', 'portal-task')}
          />
          <FieldError id="portal-task-error" message={errorOf('task')} />
        </div>
      </div>
      <SchemaEditor
        id="portal-form-schema"
        label="Form schema (JSON Schema of the form data a job takes)"
        text={formSchema}
        onChange={setFormSchema}
        kind="form"
        serverError={errorOf('form_schema')}
      />
      <details className="more" open={moreOpen} onToggle={(e) => setMoreOpen(e.currentTarget.open)}>
        <summary>Output schema, webhook, profile, skills and assist model</summary>
        <SchemaEditor
          id="portal-output-schema"
          label="Output schema (optional: the result's shape)"
          text={outputSchema}
          onChange={setOutputSchema}
          kind="output"
          serverError={errorOf('output_schema')}
        />
        <div className="form-grid">
          <div className="field">
            <label htmlFor="portal-webhook">Webhook URL (optional)</label>
            <input
              id="portal-webhook"
              type="url"
              value={webhookUrl}
              onChange={(e) => setWebhookUrl(e.target.value)}
              placeholder="https://example.org/hooks/portico"
              {...invalid('webhook_url', 'portal-webhook')}
            />
            <FieldError id="portal-webhook-error" message={errorOf('webhook_url')} />
          </div>
          <div className="field">
            <label htmlFor="portal-profile">Browser profile</label>
            <select
              id="portal-profile"
              value={profileId}
              onChange={(e) => setProfileId(e.target.value)}
              {...invalid('profile_id', 'portal-profile')}
            >
              <option value="">None (a fresh browser every job)</option>
              {(profiles.data ?? []).map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
            <FieldError id="portal-profile-error" message={errorOf('profile_id')} />
          </div>
          <div className="field">
            <label htmlFor="portal-assist-model">Assist model (maps unmatched fields only)</label>
            <input
              id="portal-assist-model"
              value={assistModel}
              onChange={(e) => setAssistModel(e.target.value)}
              placeholder="e.g. anthropic:claude-haiku-4-5"
              {...invalid('assist_model', 'portal-assist-model')}
            />
            <FieldError id="portal-assist-model-error" message={errorOf('assist_model')} />
            <span className="hint">
              Empty: off. builtin:autofill may ask it which field a key its rules leave unmatched belongs in — never for
              values; once per page, then cached.
            </span>
          </div>
        </div>
        {(skills.data ?? []).length > 0 && (
          <fieldset className="field">
            <legend>Skills</legend>
            <FieldError id="portal-skills-error" message={errorOf('skill_ids')} />
            {(skills.data ?? []).map((skill) => (
              <label key={skill.id} className="check">
                <input
                  type="checkbox"
                  checked={skillIds.includes(skill.id)}
                  onChange={(e) =>
                    setSkillIds(e.target.checked ? [...skillIds, skill.id] : skillIds.filter((id) => id !== skill.id))
                  }
                />
                {skill.folder_name}/{skill.name}
              </label>
            ))}
          </fieldset>
        )}
      </details>
      <ErrorNote detail={save.error} title="Not saved:" />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={save.busy || !schemasValid}>
          {existing ? 'Save changes' : 'Create portal'}
        </button>
        {!schemasValid && <span className="muted">Fix the schema first.</span>}
      </div>
    </form>
  );
}
