/** Where a value read from documents came from (the contract's ExtractionSource). */
export interface ValueSource {
  document: string;
  page: number | null;
  text: string;
  ocr?: boolean | undefined;
}

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Each value read from documents, with its source beside it: the document, the page, and the text quoted. */
export function SourcedValues(props: {
  values: Record<string, unknown>;
  sources: Record<string, ValueSource>;
  hiddenKeys?: string[];
}) {
  const keys = [...new Set([...Object.keys(props.values), ...(props.hiddenKeys ?? [])])];
  if (keys.length === 0) return <p className="muted">No value was read from the documents.</p>;
  return (
    <>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must take focus so the keyboard can scroll it (WCAG 2.1.1) */}
      <section className="table-scroll" tabIndex={0} aria-label="Values table">
        <table className="table compact sourced-values" aria-label="Values read from the documents">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Value</th>
              <th scope="col">Source</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => {
              const source = props.sources[key];
              const hidden = !(key in props.values);
              return (
                <tr key={key}>
                  <td className="mono">{key}</td>
                  <td>{hidden ? <span className="muted">hidden (secret)</span> : shown(props.values[key])}</td>
                  <td>
                    {source === undefined ? (
                      <span className="muted">—</span>
                    ) : (
                      <>
                        <span className="source-doc">{source.document}</span>
                        {source.page !== null && <span>, page {source.page}</span>}
                        {source.ocr === true && <span className="muted"> (read by OCR)</span>}
                        {source.text !== '' && <q className="source-text">{source.text}</q>}
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
    </>
  );
}
