/** `HANDRAISE_DEMO_MODEL` for `npm start`: which real model the demo runs, or a one-line problem. */
import { describe, expect, it } from "vitest";
import {
  awsCredentialSettings,
  DEMO_SYSTEM_PROMPT,
  demoModelFromEnv,
  restoreAwsCredentials,
} from "#infra/local/demo-model.ts";
import { agentModelSchema } from "#lib/agent/model-step.ts";

describe("HANDRAISE_DEMO_MODEL", () => {
  it("is the scripted demo when unset", () => {
    expect(demoModelFromEnv({})).toBeUndefined();
    expect(demoModelFromEnv({ HANDRAISE_DEMO_MODEL: " " })).toBeUndefined();
  });

  it("names a Bedrock model id (colons and all) in your AWS region", () => {
    const demo = demoModelFromEnv({
      HANDRAISE_DEMO_MODEL: "bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0",
      AWS_REGION: "eu-west-1",
    });
    expect(demo).toEqual({
      model: {
        provider: "bedrock",
        modelId: "us.anthropic.claude-3-5-haiku-20241022-v1:0",
        region: "eu-west-1",
        system: DEMO_SYSTEM_PROMPT,
      },
      usesAws: true,
    });
  });

  it("names an OpenAI or Anthropic model, with a compatible server's URL when given; the key stays in the environment", () => {
    const openai = demoModelFromEnv({
      HANDRAISE_DEMO_MODEL: "openai:llama3.1",
      OPENAI_API_KEY: "sk-local-0123456789",
      OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
    });
    expect(openai).toMatchObject({
      model: { provider: "openai", model: "llama3.1", baseUrl: "http://127.0.0.1:11434/v1" },
    });
    expect(JSON.stringify(openai)).not.toContain("sk-local");
    const anthropic = demoModelFromEnv({
      HANDRAISE_DEMO_MODEL: "anthropic:claude-sonnet-4-5",
      ANTHROPIC_API_KEY: "k",
    });
    expect(anthropic).toMatchObject({
      model: { provider: "anthropic", baseUrl: "https://api.anthropic.com" },
    });
    for (const demo of [openai, anthropic]) {
      expect(agentModelSchema.safeParse(demo && "model" in demo ? demo.model : undefined).success).toBe(true);
    }
  });

  it("says what is wrong in one line", () => {
    expect(demoModelFromEnv({ HANDRAISE_DEMO_MODEL: "gemini:pro" })).toEqual({
      problem:
        'HANDRAISE_DEMO_MODEL must be bedrock:<modelId>, openai:<model> or anthropic:<model> (got "gemini:pro").',
    });
    expect(demoModelFromEnv({ HANDRAISE_DEMO_MODEL: "openai:" })).toMatchObject({
      problem: expect.any(String),
    });
    expect(demoModelFromEnv({ HANDRAISE_DEMO_MODEL: "openai:gpt-4o" })).toEqual({
      problem: "HANDRAISE_DEMO_MODEL=openai:gpt-4o needs the API key in OPENAI_API_KEY.",
    });
  });

  it("gives Bedrock your AWS credentials back after the local stack set its own", () => {
    const env: Record<string, string | undefined> = { AWS_PROFILE: "dev" };
    const saved = awsCredentialSettings(env);
    Object.assign(env, { AWS_ACCESS_KEY_ID: "local", AWS_SECRET_ACCESS_KEY: "local" });
    restoreAwsCredentials(env, saved);
    expect(env).toEqual({ AWS_PROFILE: "dev" });
  });
});
