// The seam through which builtin:autofill may ask a model where unmatched keys go (portal
// `assist_model`). Only the mapping is asked for — never a value: the request carries key names,
// schema titles and descriptions and the kind of each value, not the values themselves.

/** A form_data key the filler could not place by its own rules. */
export interface MappingKey {
  key: string;
  title: string;
  description: string;
  /** The kind of value (`text`, `date`, `yes/no`, `list`, `file`, `number`), never the value. */
  kind: string;
}

/** A control of the page, indexed as the model sees it. */
export interface MappingControl {
  index: number;
  label: string;
  kind: string;
  /** Hint, legend and prefix/suffix texts around it. */
  context: string[];
  options: string[];
  required: boolean;
}

export interface KeyMapRequest {
  /** The page's form structure (the same controls give the same string); the cache key with the keys. */
  structure: string;
  pageUrl: string;
  keys: MappingKey[];
  controls: MappingControl[];
  signal: AbortSignal;
}

/** Maps unmatched keys to control indexes; a key left out (or mapped to nothing) stays unmatched. */
export interface KeyMapper {
  map(request: KeyMapRequest): Promise<Map<string, number>>;
}
