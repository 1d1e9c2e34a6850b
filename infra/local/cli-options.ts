import { ConfigError } from "#lib/config.ts";
import { describeIssue, issuesOf } from "#lib/validation-messages.ts";
import * as z from "#lib/zod.ts";
import { type LocalStack, type LocalStackOptions, startLocalStack } from "./stack.ts";

const port = (fallback: number) =>
  z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65_535)), fallback);

const cliEnvSchema = z.object({
  PORT: port(3000),
  SFN_PORT: port(8083),
  DYNAMODB_PORT: port(8000),
  HANDRAISE_DATA_DIR: z.optional(z.string().check(z.minLength(1))),
  HANDRAISE_API_KEY: z.optional(z.string().check(z.minLength(16))),
});

/** The local stack's settings from the environment (names and defaults: docs/local-stack.md). */
export function localStackOptionsFromEnv(env: Record<string, string | undefined>): LocalStackOptions {
  const parsed = cliEnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v)));
  if (!parsed.success) {
    const problems = issuesOf(parsed.error.issues).map(describeIssue);
    throw new ConfigError(`Invalid local stack settings: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    sfnPort: e.SFN_PORT,
    dynamodbPort: e.DYNAMODB_PORT,
    dataDir: e.HANDRAISE_DATA_DIR,
    ...(e.HANDRAISE_API_KEY && { apiKey: e.HANDRAISE_API_KEY }),
  };
}

/** Stops on the first SIGINT/SIGTERM and exits once everything is closed. */
export function stopOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping the local stack…\n`);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
}

/**
 * Starts the local stack for a command (`npm start`, `npm run local`). A problem the user can fix — a bad
 * setting, a port another process holds — is one line naming what to change, and exit code 1; anything
 * else is thrown as it is.
 */
export async function startFromCommandLine(
  env: Record<string, string | undefined>,
  extra: Partial<LocalStackOptions> = {},
): Promise<LocalStack> {
  let options: LocalStackOptions | undefined;
  try {
    // The terminal is the person's own: a mail the e-mail channel sends (HANDRAISE_EMAIL_FROM set) is shown
    // there, links and all, instead of leaving the machine.
    options = { ...localStackOptionsFromEnv(env), printMails: true, ...extra };
    return await startLocalStack(options);
  } catch (error) {
    const problem = startProblem(error, options);
    if (problem === undefined) throw error;
    process.stderr.write(`Handraise could not start: ${problem}\n`);
    process.exit(1);
  }
}

function startProblem(error: unknown, options: LocalStackOptions | undefined): string | undefined {
  if (error instanceof ConfigError) return error.message;
  const failure = error as NodeJS.ErrnoException & { port?: number };
  if (failure?.code !== "EADDRINUSE") return undefined;
  const ports: [string, number | undefined][] = [
    ["PORT", options?.port],
    ["SFN_PORT", options?.sfnPort],
    ["DYNAMODB_PORT", options?.dynamodbPort],
  ];
  const variable = ports.find(([, port]) => port !== undefined && port !== 0 && port === failure.port)?.[0];
  return variable
    ? `port ${failure.port} is in use (another local stack?). Stop that process or choose another port: ${variable}=<port> (0 picks a free one).`
    : `a port is in use (${failure.message}). Set PORT, SFN_PORT or DYNAMODB_PORT to free ports (0 picks one).`;
}
