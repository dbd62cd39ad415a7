/** What the API server's refusal was about, for messages: `apply pod demo-x`. */
export interface KubeAction {
  verb: 'apply' | 'delete' | 'read log of';
  kind: 'pod' | 'NetworkPolicy';
  name: string;
}

/** Longest server message kept in an error (Status messages can quote whole objects). */
const MAX_REASON_CHARS = 300;

/** The HTTP status of a client-node `ApiException` (it carries `code`), else undefined. */
export function apiStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/** The `message` of the `Status` body an `ApiException` carries (an object, or its JSON text). */
export function apiStatusMessage(error: unknown): string | undefined {
  let body = (error as { body?: unknown } | null)?.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body) as unknown;
    } catch {
      return undefined;
    }
  }
  const message = (body as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message.slice(0, MAX_REASON_CHARS) : undefined;
}

const describe = (action: KubeAction) => `${action.verb} ${action.kind} ${action.name}`;

/** The API server refused a call; `status` is its HTTP status. */
export class KubeApiError extends Error {
  override readonly name: string = 'KubeApiError';
  constructor(
    readonly status: number,
    readonly action: KubeAction,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** 403: the manager's service account lacks a permission (an RBAC problem for the operator, not a retry). */
export class KubeForbiddenError extends KubeApiError {
  override readonly name = 'KubeForbiddenError';
  constructor(action: KubeAction, cause: unknown) {
    super(403, action, `the service account may not ${describe(action)} (403 Forbidden)`, { cause });
  }
}

/** 422: the object itself is invalid; `reason` is the API server's explanation. Retrying cannot help. */
export class KubeInvalidError extends KubeApiError {
  override readonly name = 'KubeInvalidError';
  constructor(
    action: KubeAction,
    readonly reason: string,
    cause: unknown,
  ) {
    super(422, action, `the API server rejected ${describe(action)}: ${reason}`, { cause });
  }
}

/** 409: a concurrent write won (or the object is being replaced); a retry re-reads and applies again. */
export class KubeConflictError extends KubeApiError {
  override readonly name = 'KubeConflictError';
  constructor(action: KubeAction, cause: unknown) {
    super(409, action, `conflict on ${describe(action)} (409); retry`, { cause });
  }
}

/**
 * The typed error for a failed call: 403, 409 and 422 get their own class, any other HTTP status a
 * {@link KubeApiError}; errors without a status (network, timeouts) are returned unchanged.
 */
export function kubeError(error: unknown, action: KubeAction): unknown {
  const status = apiStatus(error);
  switch (status) {
    case undefined:
      return error;
    case 403:
      return new KubeForbiddenError(action, error);
    case 409:
      return new KubeConflictError(action, error);
    case 422:
      return new KubeInvalidError(action, apiStatusMessage(error) ?? 'invalid object', error);
    default:
      return new KubeApiError(status, action, `${describe(action)} failed (HTTP ${status})`, {
        cause: error,
      });
  }
}
