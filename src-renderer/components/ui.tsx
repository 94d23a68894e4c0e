import { useState, type ReactNode } from 'react';
import type { JobStatus } from '../../src-main/contract/job.ts';
import { isActive, statusLabel } from '../format.ts';
import { useConsole } from '../store.ts';

/** An API failure, in the server's own words. */
export function ErrorNote(props: { detail: string | undefined; title?: string }) {
  if (props.detail === undefined) return null;
  return (
    <div className="error-note" role="alert">
      {props.title !== undefined && <strong>{props.title} </strong>}
      {props.detail}
    </div>
  );
}

/** What an empty list means and what to do next. */
export function Empty(props: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{props.title}</p>
      {props.children !== undefined && <div className="empty-body">{props.children}</div>}
    </div>
  );
}

export function PageHeader(props: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1>{props.title}</h1>
        {props.subtitle !== undefined && <p className="subtitle">{props.subtitle}</p>}
      </div>
      {props.actions !== undefined && <div className="actions">{props.actions}</div>}
    </header>
  );
}

/** A job's status; while Portico does not answer, an unfinished job's last known status is not claimed as current. */
export function StatusBadge(props: { status: JobStatus }) {
  const reachable = useConsole((s) => s.reachable);
  if (!reachable && isActive(props.status)) {
    return (
      <span className="status status-unknown" title={`Last known: ${statusLabel[props.status]}`}>
        Unknown — Portico is not reachable
      </span>
    );
  }
  return <span className={`status status-${props.status}`}>{statusLabel[props.status]}</span>;
}

export function Loading(props: { what: string }) {
  return <p className="muted loading">Loading {props.what}…</p>;
}

/** A secret the server shows exactly once: visible, copyable, with a clear warning. */
export function SecretOnce(props: { label: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(props.secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <div className="secret-once" role="status">
      <p>
        <strong>{props.label}</strong> — copy it now: it is shown only this once.
      </p>
      <div className="secret-row">
        <code className="secret" data-testid="secret">
          {props.secret}
        </code>
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="ghost" onClick={props.onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/** Focuses an element once it is in the page (what `autoFocus` does, for elements that appear after a click). */
export const focusOnMount = (element: HTMLElement | null): void => element?.focus();

/** A destructive button that asks once more in place instead of a modal. */
export function ConfirmButton(props: { label: string; confirm: string; onConfirm: () => void; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger ghost" disabled={props.disabled} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span className="confirm">
      <button
        type="button"
        className="danger"
        ref={focusOnMount}
        onClick={() => {
          setAsking(false);
          props.onConfirm();
        }}
      >
        {props.confirm}
      </button>
      <button type="button" className="ghost" onClick={() => setAsking(false)}>
        Keep
      </button>
    </span>
  );
}

export function JsonBlock(props: { value: unknown; label?: string }) {
  return (
    <figure className="json-block" aria-label={props.label}>
      <pre className="json">{JSON.stringify(props.value, null, 2)}</pre>
    </figure>
  );
}
