/**
 * The derivations from the channel list (docs/architecture.md, "Channels as modules"): the two lists and the
 * folders name the same channels; the owner pattern, the secret catalog and each function's secrets come from
 * the descriptors; the deploy-time CommonJS (infra/deploy/secret-access.cjs) agrees with the TypeScript.
 */
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import catalog from "#infra/secrets.json" with { type: "json" };
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { CHANNEL_NAMES, CHANNEL_SPECS, hasGroupChats } from "#lib/channels/channel-specs.ts";
import { OWNER_PATTERN } from "#lib/channels/owner-pattern.ts";
import { loadConfig } from "#lib/config.ts";
import { ownerSchema } from "#lib/questions/question-record.ts";
import {
  type ChannelName,
  channelSecrets,
  type FunctionName,
  functionChannels,
  functionSecrets,
  isOptionalSecret,
  optionalChannelSecrets,
  SECRET_NAMES,
  secretAbout,
  secretChannel,
  secretEnvName,
  secretProblem,
} from "#lib/secrets/secret-catalog.ts";

const require = createRequire(import.meta.url);
const secretAccess = require("../../../infra/deploy/secret-access.cjs") as {
  CHANNELS: string[];
  functionSecrets(fn: string, channels: Set<string>): string[];
};

const CHANNELS_DIR = fileURLToPath(new URL("../../../lib/channels", import.meta.url));
const FUNCTIONS = Object.keys(catalog.functions) as FunctionName[];
const ALL = new Set<ChannelName>(CHANNEL_NAMES);

describe("the channel list", () => {
  it("the descriptors and the specs list the same channels, in the same order, each with its own spec", () => {
    expect(CHANNELS.map((channel) => channel.name)).toEqual([...CHANNEL_NAMES]);
    CHANNELS.forEach((channel, i) => {
      expect(channel.manifest, channel.name).toBe(CHANNEL_SPECS[i]?.manifest);
      expect(channel.config, channel.name).toBe(CHANNEL_SPECS[i]?.config);
      expect(channel.manifest.name, channel.name).toBe(channel.name);
    });
  });

  it("every channel folder with a manifest is listed, and the deploy CommonJS reads the same ones", () => {
    const folders = readdirSync(CHANNELS_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(CHANNELS_DIR, entry.name, "manifest.json")))
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual([...CHANNEL_NAMES].sort());
    expect([...secretAccess.CHANNELS].sort()).toEqual([...CHANNEL_NAMES].sort());
  });

  it("each manifest is well-formed: its secrets under its name, known readers, its webhook a function, formats that compile", () => {
    for (const { name, manifest, config } of CHANNEL_SPECS) {
      for (const [secret, entry] of Object.entries(manifest.secrets)) {
        expect(secret.startsWith(`${name}/`), secret).toBe(true);
        expect(entry.readBy.length, secret).toBeGreaterThan(0);
        for (const reader of entry.readBy) expect(["deliver", "retire", "webhook"], secret).toContain(reader);
        if (entry.format)
          expect(() => new RegExp(entry.format?.pattern ?? "", entry.format?.flags)).not.toThrow();
      }
      if (manifest.webhook !== undefined)
        expect(Object.keys(catalog.functions), name).toContain(manifest.webhook);
      // On locally when its bot token (or, without secrets, one of its settings) is set.
      const variables = [
        ...Object.values(manifest.secrets).map((secret) => secret.env),
        ...Object.keys(config.variables),
      ];
      if (manifest.onLocally !== undefined) expect(variables, name).toContain(manifest.onLocally);
    }
  });
});

describe("the owner pattern", () => {
  it("each manifest says whether its chats can hold a group: not e-mail's or WhatsApp's, nor the console", () => {
    for (const spec of CHANNEL_SPECS) expect(typeof spec.manifest.groupChats, spec.name).toBe("boolean");
    const withGroups = CHANNEL_NAMES.filter(hasGroupChats);
    expect(withGroups).toEqual(["telegram", "slack", "discord", "mattermost", "teams", "gchat"]);
    expect(hasGroupChats("console")).toBe(false);
  });

  it("accepts each channel's example owner, and web: and console: owners", () => {
    for (const { manifest } of CHANNEL_SPECS) {
      expect(OWNER_PATTERN.test(manifest.owner.example), manifest.owner.example).toBe(true);
      expect(ownerSchema.safeParse(manifest.owner.example).success, manifest.owner.example).toBe(true);
    }
    for (const owner of ["web:alice", "console:me"])
      expect(ownerSchema.safeParse(owner).success, owner).toBe(true);
  });

  it("refuses a platform no channel has, an owner without an id, and whitespace in an id", () => {
    for (const owner of ["nochannel:1", "icq:42", "Telegram:42", "telegram:", "telegram", "slack:T1 U1"]) {
      expect(OWNER_PATTERN.test(owner), owner).toBe(false);
      const parsed = ownerSchema.safeParse(owner);
      expect(parsed.success, owner).toBe(false);
      expect(parsed.error?.issues[0]?.message, owner).toContain(
        'e.g. "telegram:12345", "slack:T1:U1" or "web:alice"',
      );
    }
  });
});

describe("the secret catalog", () => {
  it("is the deployment's own secrets and the union of every channel's, each with its variable and about", () => {
    const expected = [
      ...Object.keys(catalog.parameters),
      ...CHANNEL_SPECS.flatMap((spec) => Object.keys(spec.manifest.secrets)),
    ];
    expect([...SECRET_NAMES].sort()).toEqual(expected.sort());
    for (const { name, manifest } of CHANNEL_SPECS) {
      for (const [secret, entry] of Object.entries(manifest.secrets)) {
        const fixed = secret as `${ChannelName}/${string}`;
        expect(secretEnvName(fixed)).toBe(entry.env);
        expect(secretAbout(fixed)).toBe(entry.about);
        expect(secretChannel(fixed)).toBe(name);
        expect(isOptionalSecret(fixed)).toBe(entry.optional === true);
      }
      const required = Object.keys(manifest.secrets).filter((secret) => !manifest.secrets[secret]?.optional);
      expect(channelSecrets(name as ChannelName)).toEqual(required);
      expect(
        [...channelSecrets(name as ChannelName), ...optionalChannelSecrets(name as ChannelName)].sort(),
      ).toEqual(Object.keys(manifest.secrets).sort());
    }
  });

  it("checks a channel secret by its manifest's format", () => {
    expect(secretProblem("telegram/bot-token", "no-colon")).toBe(
      "must be <bot id>:<secret>, as @BotFather gives it",
    );
    expect(secretProblem("telegram/bot-token", "123:abc")).toBeUndefined();
    // The flags come along: Slack's signing secret is hexadecimal in either case.
    expect(secretProblem("slack/signing-secret", "ABCDEF0123456789abcdef0123456789")).toBeUndefined();
    expect(secretProblem("slack/signing-secret", "g".repeat(32))).toBe("must be 32 hexadecimal characters");
    expect(secretProblem("discord/bot-token", "two words")).toBe("must be one word, without spaces");
  });

  it("a webhook reads only its own channel's secrets; delivering functions every channel's client secrets", () => {
    for (const { name, manifest } of CHANNEL_SPECS) {
      if (manifest.webhook === undefined) continue;
      const fn = manifest.webhook as FunctionName;
      const channelOnes = functionSecrets(fn, ALL).filter((secret) => secretChannel(secret) !== undefined);
      expect(channelOnes.map((secret) => secretChannel(secret))).toEqual(channelOnes.map(() => name));
      expect(functionChannels(fn, ALL), fn).toEqual([name]);
    }
    for (const fn of catalog.channelReaders.deliver as FunctionName[]) {
      expect(functionChannels(fn, ALL), fn).toEqual([...CHANNEL_NAMES]);
    }
    expect(functionChannels("answerPage", ALL)).toEqual([]);
    expect(functionChannels("ask", new Set<ChannelName>(["slack"]))).toEqual(["slack"]);
  });

  it("the deploy CommonJS grants every function exactly the secrets the TypeScript lets it read", () => {
    const deployments: Set<ChannelName>[] = [ALL, new Set(), ...CHANNEL_NAMES.map((name) => new Set([name]))];
    for (const channels of deployments) {
      for (const fn of FUNCTIONS) {
        expect(secretAccess.functionSecrets(fn, channels).sort(), `${fn} with ${[...channels]}`).toEqual(
          functionSecrets(fn, channels).sort(),
        );
      }
    }
  });
});

describe("the configuration", () => {
  it("each channel's settings come from its spec, under its name, only when it is on", () => {
    const config = loadConfig({
      HANDRAISE_TABLE: "t",
      HANDRAISE_CHANNELS: "slack,teams",
      HANDRAISE_SSM_PREFIX: "/handraise/test",
      TEAMS_APP_ID: "00000000-0000-0000-0000-000000000001",
      TEAMS_TENANT_ID: "example.onmicrosoft.com",
    });
    expect(Object.keys(config.channels).sort()).toEqual(["slack", "teams"]);
    expect(config.channels.slack).toEqual({ apiBase: "https://slack.com/api" });
    expect(config.channels.teams?.tenantId).toBe("example.onmicrosoft.com");
  });

  it("a channel's variables are checked for their format even when it is off", () => {
    expect(() =>
      loadConfig({ HANDRAISE_TABLE: "t", HANDRAISE_CHANNELS: "slack", DISCORD_PUBLIC_KEY: "not-hex" }),
    ).toThrow(/DISCORD_PUBLIC_KEY/);
  });
});
