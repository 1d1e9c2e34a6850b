/**
 * How a run ends when its model cannot go on. The state machine catches these by name (the ModelStep
 * state's Catch in infra/state-machines/agent.asl.json) and fails the run with the same error and the
 * message as its cause; a bundler renames classes, so each sets `name` explicitly
 * (test/template/bundles.test.ts checks the caught names are in the bundles).
 *
 * Messages are written for the person reading the failed run in the console: what failed and what to do.
 * They never hold an API key: provider text in them goes through `redactSecret` first.
 */

/** The provider failed after its retries, refused the request, or its key is missing or unreadable. */
export class ModelError extends Error {
  override readonly name = "Handraise.ModelError";
}

/** The loop guard: the run's model calls reached `maxSteps` without a reply. */
export class StepLimitError extends Error {
  override readonly name = "Handraise.StepLimitExceeded";
  constructor(readonly maxSteps: number) {
    super(
      `The model made ${maxSteps} calls without replying (model.maxSteps is ${maxSteps}), so the run stops here. ` +
        "Look at the transcript for a loop; raise maxSteps if the task really needs more calls.",
    );
  }
}

/** The shortest part of a secret that counts as leaked when it shows up in provider text. */
const MIN_LEAK = 8;

/**
 * `text` without any run of 8 or more characters of `secret` (the key itself, or a provider echoing part of
 * it back in an error), each replaced by `[redacted]`.
 *
 * @example
 * redactSecret("Incorrect API key provided: sk-abc123456789", "sk-abc123456789") // "Incorrect API key provided: [redacted]"
 */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret || secret.length < MIN_LEAK) return text;
  let out = "";
  let i = 0;
  while (i < text.length) {
    const length = longestSecretRunAt(text, i, secret);
    if (length >= MIN_LEAK) {
      out += "[redacted]";
      i += length;
    } else {
      out += text[i];
      i += 1;
    }
  }
  return out;
}

/** The length of the longest substring of `secret` that `text` has at position `at`. */
function longestSecretRunAt(text: string, at: number, secret: string): number {
  let best = 0;
  for (
    let start = secret.indexOf(text[at] ?? "");
    start !== -1;
    start = secret.indexOf(text[at] ?? "", start + 1)
  ) {
    let length = 0;
    while (
      at + length < text.length &&
      start + length < secret.length &&
      text[at + length] === secret[start + length]
    ) {
      length += 1;
    }
    best = Math.max(best, length);
  }
  return best;
}
