import type { SchemaField } from '../schema.ts';

interface SchemaFormProps {
  fields: SchemaField[];
  values: Record<string, unknown>;
  onChange?: (values: Record<string, unknown>) => void;
  /** A preview: the controls are drawn but cannot be used. */
  preview?: boolean;
  idPrefix: string;
}

/** The form a portal's form_schema describes: one labelled control per property. */
export function SchemaForm(props: SchemaFormProps) {
  const { fields, values, preview = false } = props;
  const set = (name: string, value: unknown) => props.onChange?.({ ...values, [name]: value });
  if (fields.length === 0)
    return <p className="muted">This schema names no fields; jobs take free-form JSON form data.</p>;
  return (
    <div className="schema-form">
      {fields.map((field) => {
        const id = `${props.idPrefix}-${field.name}`;
        const label = (
          <span className="field-label">
            {field.label}
            {field.required && (
              <>
                <span className="required" aria-hidden>
                  {' '}
                  *
                </span>
                <span className="sr-only"> (required)</span>
              </>
            )}
          </span>
        );
        const hint = field.description !== undefined ? <span className="hint">{field.description}</span> : null;
        const text = typeof values[field.name] === 'string' ? (values[field.name] as string) : '';
        if (field.kind === 'boolean') {
          return (
            <label key={field.name} className="check" htmlFor={id}>
              <input
                id={id}
                type="checkbox"
                disabled={preview}
                checked={values[field.name] === true}
                onChange={(e) => set(field.name, e.target.checked)}
              />
              {label}
              {hint}
            </label>
          );
        }
        if (field.kind === 'multiselect') {
          const chosen = Array.isArray(values[field.name]) ? (values[field.name] as string[]) : [];
          return (
            <fieldset key={field.name} className="field">
              <legend>{label}</legend>
              {field.options.map((option) => (
                <label key={option} className="check">
                  <input
                    type="checkbox"
                    disabled={preview}
                    checked={chosen.includes(option)}
                    onChange={(e) =>
                      set(field.name, e.target.checked ? [...chosen, option] : chosen.filter((c) => c !== option))
                    }
                  />
                  {option}
                </label>
              ))}
              {hint}
            </fieldset>
          );
        }
        let control;
        if (field.kind === 'select') {
          control = (
            <select id={id} disabled={preview} value={text} onChange={(e) => set(field.name, e.target.value)}>
              <option value="">—</option>
              {field.options.map((option) => (
                <option key={option} value={option}>
                  {option}
                </option>
              ))}
            </select>
          );
        } else if (field.kind === 'textarea' || field.kind === 'json') {
          control = (
            <textarea
              id={id}
              disabled={preview}
              rows={field.kind === 'json' ? 4 : 3}
              value={text}
              placeholder={field.kind === 'json' ? 'JSON' : undefined}
              onChange={(e) => set(field.name, e.target.value)}
            />
          );
        } else {
          const type = field.kind === 'number' || field.kind === 'integer' ? 'number' : field.inputType;
          control = (
            <input
              id={id}
              type={type}
              step={field.kind === 'number' ? 'any' : undefined}
              disabled={preview}
              value={text}
              onChange={(e) => set(field.name, e.target.value)}
            />
          );
        }
        return (
          <div key={field.name} className="field">
            <label htmlFor={id}>{label}</label>
            {control}
            {hint}
          </div>
        );
      })}
    </div>
  );
}
