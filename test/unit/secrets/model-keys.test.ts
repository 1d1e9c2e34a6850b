/**
 * Model API keys as named secrets: a run names one (`apiKeySecret`), the modelStep function may read any
 * `models/<name>` and nothing else, locally from OPENAI_API_KEY / ANTHROPIC_API_KEY / HANDRAISE_SECRET_<NAME>,
 * deployed from the SSM SecureString `<prefix>/models/<name>` through Powertools' cache.
 */
import type { SSMProvider } from "@aws-lambda-powertools/parameters/ssm";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "#lib/config.ts";
import { createEnvSecrets } from "#lib/secrets/env-secrets.ts";
import {
  fixedSecrets,
  functionSecrets,
  isModelSecretName,
  secretEnvName,
} from "#lib/secrets/secret-catalog.ts";
import { limitSecrets, type Secrets } from "#lib/secrets/secrets.ts";
import { createSsmSecrets } from "#lib/secrets/ssm-secrets.ts";
import { createSecrets } from "#lib/wiring.ts";

const KEY = "sk-proj-unit0123456789abcdef";

describe("model key names", () => {
  it("map to their local variables: the providers' usual ones, HANDRAISE_SECRET_<NAME> for the rest", () => {
    expect(secretEnvName("models/openai")).toBe("OPENAI_API_KEY");
    expect(secretEnvName("models/anthropic")).toBe("ANTHROPIC_API_KEY");
    expect(secretEnvName("models/team-openai")).toBe("HANDRAISE_SECRET_TEAM_OPENAI");
    expect(secretEnvName("models/groq_2")).toBe("HANDRAISE_SECRET_GROQ_2");
  });

  it("are lower-case words under models/, nothing that could climb out of the path", () => {
    for (const name of ["models/openai", "models/a", "models/team-openai_2"])
      expect(isModelSecretName(name)).toBe(true);
    for (const name of [
      "models/",
      "models/*",
      "models/../api-key",
      "models/OpenAI",
      "models/a/b",
      "api-key",
    ]) {
      expect(isModelSecretName(name), name).toBe(false);
    }
  });

  it("are readable by the modelStep function only, as the path grant models/*", () => {
    const none = new Set<never>();
    expect(functionSecrets("modelStep", none)).toEqual(["models/*"]);
    expect(fixedSecrets(functionSecrets("modelStep", none))).toEqual([]);
    for (const fn of [
      "questionsApi",
      "ask",
      "telegramWebhook",
      "executionStatus",
      "questionEvents",
    ] as const) {
      expect(functionSecrets(fn, new Set(["telegram", "slack", "discord", "mattermost"])), fn).not.toContain(
        "models/*",
      );
    }
  });
});

describe("reading a model key", () => {
  const everything: Secrets = {
    get: async (name) => `value of ${name}`,
    getGroup: async (group) => ({ one: `value of ${group}/one` }),
  };

  it("limitSecrets lets models/* read any model key and nothing else", async () => {
    const modelStep = limitSecrets(everything, ["models/*"]);
    await expect(modelStep.get("models/team-openai")).resolves.toBe("value of models/team-openai");
    await expect(modelStep.get("api-key")).rejects.toThrow("This function may not read the secret api-key.");
    const ask = limitSecrets(everything, ["telegram/bot-token"]);
    await expect(ask.get("models/openai")).rejects.toThrow("may not read the secret models/openai");
  });

  it("locally: loadConfig keeps the key variables aside and a run's read checks them, naming the variable only", async () => {
    const config = loadConfig({
      HANDRAISE_TABLE: "t",
      OPENAI_API_KEY: KEY,
      HANDRAISE_SECRET_TEAM: "changeme",
      // Placeholders in unrelated variables stop nothing: a model key is checked when a run reads it.
      HANDRAISE_SECRET_UNUSED: "xxx",
    });
    expect(config.secrets).toEqual({
      kind: "env",
      values: {},
      modelKeys: { OPENAI_API_KEY: KEY, HANDRAISE_SECRET_TEAM: "changeme", HANDRAISE_SECRET_UNUSED: "xxx" },
    });
    const secrets = createSecrets(config, "modelStep");
    await expect(secrets.get("models/openai")).resolves.toBe(KEY);
    await expect(secrets.get("models/anthropic")).resolves.toBeUndefined();
    const placeholder = secrets.get("models/team").catch((error: unknown) => error as ConfigError);
    await expect(placeholder).resolves.toBeInstanceOf(ConfigError);
    expect(((await placeholder) as ConfigError).message).toBe(
      'HANDRAISE_SECRET_TEAM is a placeholder ("changeme"), not a secret.',
    );
    const spaced = createEnvSecrets({}, { OPENAI_API_KEY: `${KEY} extra` });
    await expect(spaced.get("models/openai")).rejects.toThrow(
      /^OPENAI_API_KEY must be one word, without spaces\.$/,
    );
  });

  it("deployed: the key variables are not read (a shell's OPENAI_API_KEY stops nothing), and no modelKeys", () => {
    const config = loadConfig({
      HANDRAISE_TABLE: "t",
      HANDRAISE_SSM_PREFIX: "/handraise/prod",
      OPENAI_API_KEY: KEY,
    });
    expect(config.secrets).toEqual({ kind: "ssm", prefix: "/handraise/prod", maxAgeSeconds: 300 });
  });

  it("deployed: the SSM SecureString <prefix>/models/<name>, decrypted, through Powertools' cache", async () => {
    const reads: { path: string; options: unknown }[] = [];
    const provider = {
      get: async (path: string, options: unknown) => {
        reads.push({ path, options });
        return KEY;
      },
    } as unknown as SSMProvider;
    const secrets = createSsmSecrets({
      prefix: "/handraise/prod/",
      maxAgeSeconds: 300,
      now: () => 0,
      provider,
    });
    await expect(secrets.get("models/team-openai")).resolves.toBe(KEY);
    expect(reads).toEqual([
      {
        path: "/handraise/prod/models/team-openai",
        options: { decrypt: true, maxAge: 300, throwOnMissing: true },
      },
    ]);
  });
});
