import type { z } from 'zod';

/** Who may call an operation: nobody in particular, an org key (or the console), an account key (or the console), the console only. */
export type AuthMode = 'none' | 'org' | 'account' | 'console';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A success body that is not JSON: the handler writes it (file, archive, text) or hijacks the reply (event streams). */
export interface ProducedBody {
  /** Its content type, as OpenAPI publishes it. */
  readonly type: string;
  /** Documents the body (or one event's JSON) in OpenAPI; the handler writes the bytes, so it is not checked. */
  readonly schema?: z.ZodType;
}

interface DeclarationBase {
  readonly method: HttpMethod;
  /** Path template with `:name` parameters, e.g. `/portals/:org_id/:endpoint_name`. */
  readonly path: string;
  /** The OpenAPI tag, and the group of handlers the operation belongs to (one `api/routes/*` file). */
  readonly tag: string;
  readonly summary: string;
  readonly auth: AuthMode;
  /** Path parameters: every `:name` of `path`, validated before the handler runs. */
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  /** The JSON request body. */
  readonly body?: z.ZodType;
  /** A file upload the handler reads itself (documented in OpenAPI only). */
  readonly multipart?: { readonly fileField: string };
  /** `route`: an account operation whose handler checks workspace membership itself, to answer its own 403 (interface §7). */
  readonly membership?: 'route';
}

/** A JSON success body: the handler returns the schema's input; it is parsed (unknown keys stripped) before it is sent. */
interface JsonSuccess extends DeclarationBase {
  readonly response: z.ZodType;
  readonly status?: 200 | 201;
  readonly produces?: never;
}

/** 204, no body: the handler returns nothing. */
interface NoContent extends DeclarationBase {
  readonly status: 204;
  readonly response?: never;
  readonly produces?: never;
}

/** A body the handler writes to the reply itself. */
interface HandlerWritten extends DeclarationBase {
  readonly produces: ProducedBody;
  readonly response?: never;
  readonly status?: never;
}

/**
 * One HTTP operation, declared once: the server validates and serializes with these schemas, OpenAPI
 * publishes them (the operation's name is its `operationId`), the typed client builds its requests and
 * types its results from them. Exactly one of `response`, `status: 204` or `produces`.
 */
export type OperationDeclaration = JsonSuccess | NoContent | HandlerWritten;
