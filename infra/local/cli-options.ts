import { z } from "zod";
import type { LocalStackOptions } from "./stack.ts";

const port = (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback);

const cliEnvSchema = z.object({
  PORT: port(3000),
  SFN_PORT: port(8083),
  DYNAMODB_PORT: port(8000),
  HANDRAISE_DATA_DIR: z.string().min(1).optional(),
  HANDRAISE_API_KEY: z.string().min(16).optional(),
});

/** The local stack's settings from the environment (DESIGN.md §6 names and defaults). */
export function localStackOptionsFromEnv(env: Record<string, string | undefined>): LocalStackOptions {
  const parsed = cliEnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v)));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
    throw new Error(`Invalid local stack settings: ${problems.join("; ")}`);
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
