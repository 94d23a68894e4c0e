import { useMemo } from 'react';
import { checkSchema, fieldsOf, type SchemaCheck } from '../schema.ts';
import { SchemaForm } from './SchemaForm.tsx';

interface SchemaEditorProps {
  id: string;
  label: string;
  text: string;
  onChange: (text: string) => void;
  /** form_schema must describe an object; output_schema may be empty (no schema). */
  kind: 'form' | 'output';
  /** The server's refusal of exactly this text, in words: it overrides the editor's own verdict until the text changes. */
  serverError?: string;
}

/** A JSON Schema textarea that checks itself as the user types and previews the form it describes. */
export function SchemaEditor(props: SchemaEditorProps) {
  const check: SchemaCheck | undefined = useMemo(
    () => checkSchema(props.text, { mustBeObject: props.kind === 'form', allowEmpty: props.kind === 'output' }),
    [props.text, props.kind],
  );
  const fields = check?.ok ? fieldsOf(check.schema) : [];
  // The server has the final word: after it refused this text, the editor never says "Valid" about it.
  const refused = props.serverError !== undefined;
  const bad = refused || (check !== undefined && !check.ok);
  const verdict = refused
    ? `Portico refused this schema: ${props.serverError ?? ''}`
    : check === undefined
      ? 'No schema: the result is not checked.'
      : check.ok
        ? `Valid JSON Schema${check.warnings.length > 0 ? ` — ${check.warnings.join('; ')}` : ''}`
        : check.error;
  return (
    <div className="schema-editor">
      <div className="field">
        <label htmlFor={props.id}>{props.label}</label>
        <textarea
          id={props.id}
          className={`code ${bad ? 'invalid' : ''}`}
          rows={12}
          spellCheck={false}
          value={props.text}
          onChange={(e) => props.onChange(e.target.value)}
          aria-invalid={bad}
          aria-describedby={`${props.id}-check`}
        />
        <span
          id={`${props.id}-check`}
          className={bad ? 'check bad' : 'check good'}
          role="status"
          data-testid={`${props.id}-check`}
        >
          {verdict}
        </span>
      </div>
      {props.kind === 'form' && (
        <section className="preview" aria-label="Form preview">
          <div className="panel-title">Preview of the form</div>
          {check?.ok ? (
            <SchemaForm fields={fields} values={{}} preview idPrefix={`${props.id}-preview`} />
          ) : (
            <p className="muted">Fix the schema to see its form.</p>
          )}
        </section>
      )}
    </div>
  );
}

/** Whether an editor's text is something the server may accept (it has the final word). */
export function schemaTextIsValid(text: string, kind: 'form' | 'output'): boolean {
  const check = checkSchema(text, { mustBeObject: kind === 'form', allowEmpty: kind === 'output' });
  return check === undefined || check.ok;
}
