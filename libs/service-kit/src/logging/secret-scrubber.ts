/** What a scrubbed secret value is replaced with. */
export const SCRUBBED = '[secret]';

/**
 * The shortest value the scrubber accepts. Replacing a shorter string everywhere would mangle log
 * lines (and a secret that short is not a secret).
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * Knows the secret VALUES of this process (a bootstrap secret read from a file, a heartbeat
 * credential Node returned) and removes them from any text, wherever they appear: in a message, a
 * field, an error's message or stack. The logger runs every output line through it.
 */
export interface SecretScrubber {
  /** Starts scrubbing a value; throws if it is shorter than {@link MIN_SECRET_LENGTH}. */
  register(value: string | Uint8Array): void;
  /** Stops scrubbing a value (a session token whose session ended), so the set stays small. */
  forget(value: string | Uint8Array): void;
  /** The text with every registered value (raw or JSON-escaped, once or twice) replaced. */
  scrub(text: string): string;
  /** Number of registered values. */
  readonly size: number;
}

/** Creates an empty {@link SecretScrubber}; create one per process and pass it down. */
export function createSecretScrubber(): SecretScrubber {
  const values = new Set<string>();
  let pattern: RegExp | undefined;

  const rebuild = (): void => {
    const forms = new Set<string>();
    for (const value of values) {
      // A secret file's trailing newline may be dropped on the way into a header or a message.
      const variants = value.trim().length >= MIN_SECRET_LENGTH ? [value, value.trim()] : [value];
      for (const form of variants.flatMap(encodedForms)) forms.add(form);
    }
    // Longest first, so a secret that contains another is replaced whole.
    const sorted = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
    pattern = sorted.length === 0 ? undefined : new RegExp(sorted.join('|'), 'g');
  };

  return {
    register(value) {
      const text = asText(value);
      if (text.length < MIN_SECRET_LENGTH) {
        throw new Error(
          `a secret value must have at least ${MIN_SECRET_LENGTH} characters to be scrubbed from logs`,
        );
      }
      if (values.has(text)) return;
      values.add(text);
      rebuild();
    },
    forget(value) {
      if (values.delete(asText(value))) rebuild();
    },
    scrub(text) {
      return pattern === undefined ? text : text.replace(pattern, SCRUBBED);
    },
    get size() {
      return values.size;
    },
  };
}

function asText(value: string | Uint8Array): string {
  return typeof value === 'string' ? value : Buffer.from(value).toString('utf8');
}

/**
 * The forms a value takes in a JSON log line: as is, JSON-escaped (quotes, backslashes, control
 * characters) once, twice and three times (a JSON document logged as a string field, itself inside
 * one), and percent-encoded (a query parameter or a form body).
 */
function encodedForms(value: string): string[] {
  const forms = [value];
  for (let level = 0; level < 3; level += 1) forms.push(JSON.stringify(forms[level]).slice(1, -1));
  forms.push(encodeURIComponent(value));
  return forms;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
