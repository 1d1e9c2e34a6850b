import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "#lib/config.ts";

describe("loadConfig", () => {
  it("applies the contract's defaults", () => {
    const config = loadConfig({ HANDRAISE_TABLE: "t" });
    expect(config).toMatchObject({
      tableName: "t",
      apiKey: undefined,
      limits: { minTimeoutSeconds: 30, maxTimeoutSeconds: 3600 },
      consoleChannel: false,
      telegram: { apiBase: "https://api.telegram.org" },
    });
  });

  it("treats empty strings as unset", () => {
    expect(loadConfig({ HANDRAISE_TABLE: "t", HANDRAISE_API_KEY: "" }).apiKey).toBeUndefined();
  });

  it("refuses a missing table, a short API key, and a ceiling above one year, naming each variable", () => {
    expect(() => loadConfig({})).toThrow(ConfigError);
    expect(() => loadConfig({})).toThrow(/HANDRAISE_TABLE/);
    expect(() => loadConfig({ HANDRAISE_TABLE: "t", HANDRAISE_API_KEY: "short" })).toThrow(
      /HANDRAISE_API_KEY/,
    );
    expect(() => loadConfig({ HANDRAISE_TABLE: "t", HANDRAISE_MAX_TIMEOUT_SECONDS: "31536001" })).toThrow(
      /HANDRAISE_MAX_TIMEOUT_SECONDS.*one year/,
    );
  });

  it("accepts a ceiling of exactly one year and refuses min above max", () => {
    expect(
      loadConfig({ HANDRAISE_TABLE: "t", HANDRAISE_MAX_TIMEOUT_SECONDS: "31536000" }).limits
        .maxTimeoutSeconds,
    ).toBe(31_536_000);
    expect(() =>
      loadConfig({
        HANDRAISE_TABLE: "t",
        HANDRAISE_MIN_TIMEOUT_SECONDS: "100",
        HANDRAISE_MAX_TIMEOUT_SECONDS: "50",
      }),
    ).toThrow(/HANDRAISE_MIN_TIMEOUT_SECONDS/);
  });

  it("refuses a non-URL API base", () => {
    expect(() => loadConfig({ HANDRAISE_TABLE: "t", TELEGRAM_API_BASE: "not a url" })).toThrow(
      /TELEGRAM_API_BASE/,
    );
  });
});
