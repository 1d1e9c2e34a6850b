/**
 * `HANDRAISE_DEMO_MODEL` for `npm start`: `bedrock:<modelId>`, `openai:<model>` or `anthropic:<model>` runs the
 * demo with that real model instead of the scripted one. OpenAI and Anthropic read their key from
 * OPENAI_API_KEY / ANTHROPIC_API_KEY (and a compatible server's URL from OPENAI_BASE_URL /
 * ANTHROPIC_BASE_URL); Bedrock uses your AWS credentials and AWS_REGION.
 */
import type { AgentModel } from "#lib/agent/model-step.ts";

/** What the demo tells a real model: the same job the scripted demo plays. */
export const DEMO_SYSTEM_PROMPT =
  "You are the release assistant of a small team. Release 1.4 is ready. Before it ships, find out from the " +
  "person where it should go (staging or production), which checks must pass (unit, e2e, lint) and what kind " +
  "of release note to write, in one ask_user call. Then reply with a one-line plan.";

const AWS_CREDENTIALS = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"];

export type DemoModel = { model: AgentModel; usesAws: boolean } | { problem: string };

/** undefined: the scripted demo. */
export function demoModelFromEnv(env: Record<string, string | undefined>): DemoModel | undefined {
  const setting = env.HANDRAISE_DEMO_MODEL?.trim();
  if (!setting) return undefined;
  // Model ids have colons of their own (anthropic.claude-…-v1:0): split at the first one only.
  const colon = setting.indexOf(":");
  const provider = colon === -1 ? setting : setting.slice(0, colon);
  const id = colon === -1 ? "" : setting.slice(colon + 1).trim();
  const usage = "HANDRAISE_DEMO_MODEL must be bedrock:<modelId>, openai:<model> or anthropic:<model>";
  if (!id) return { problem: `${usage} (got "${setting}").` };
  const system = DEMO_SYSTEM_PROMPT;
  if (provider === "bedrock") {
    const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    return {
      model: { provider, modelId: id, system, ...(region && { region }) },
      usesAws: true,
    };
  }
  if (provider === "openai" || provider === "anthropic") {
    const key = provider === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
    if (!env[key]) return { problem: `HANDRAISE_DEMO_MODEL=${setting} needs the API key in ${key}.` };
    const base = env[provider === "openai" ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL"];
    const baseUrl =
      base || (provider === "openai" ? "https://api.openai.com/v1" : "https://api.anthropic.com");
    return {
      model: { provider, model: id, baseUrl, apiKeySecret: provider, system } as AgentModel,
      usesAws: false,
    };
  }
  return { problem: `${usage} (got "${setting}").` };
}

/** Your AWS credential settings, taken before the local stack replaces them with its own. */
export function awsCredentialSettings(
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  return Object.fromEntries(AWS_CREDENTIALS.map((name) => [name, env[name]]));
}

/**
 * Puts your AWS credential settings back after the local stack started (it sets `local` ones): the local
 * DynamoDB and Step Functions accept any credentials, and Bedrock needs yours.
 */
export function restoreAwsCredentials(
  env: Record<string, string | undefined>,
  saved: Record<string, string | undefined>,
): void {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
}
