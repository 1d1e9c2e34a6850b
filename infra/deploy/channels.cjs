/**
 * The channels, as the deployment reads them at package time: every folder of lib/channels that holds a
 * manifest.json (its name, secrets and which functions read each, its webhook function, its deployment
 * parameters). The TypeScript reads the same files through each channel's spec
 * (lib/channels/<name>/<name>-spec.ts); test/unit/channels/channel-list.test.ts holds the two to the same
 * channels. Plain JSON, so CommonJS needs no TypeScript loader at package time.
 */
"use strict";

const { existsSync, readdirSync } = require("node:fs");
const { join } = require("node:path");

const CHANNELS_DIR = join(__dirname, "..", "..", "lib", "channels");

/** Each channel's manifest, by folder name (sorted). */
function channelManifests() {
  return readdirSync(CHANNELS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(CHANNELS_DIR, entry.name, "manifest.json")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => require(join(CHANNELS_DIR, name, "manifest.json")));
}

/**
 * Every channel's deployment parameters (manifest.json `params`): `{channel, name, env, required}`, the
 * serverless.yml parameter and the provider environment variable it becomes.
 */
function channelParams(manifests = channelManifests()) {
  return manifests.flatMap((manifest) =>
    (manifest.params ?? []).map((param) => ({
      channel: manifest.name,
      ...param,
      required: param.required === true,
    })),
  );
}

/**
 * Stops packaging when a channel of `enabled` lacks a required parameter in `values`: each function would
 * otherwise refuse to start (lib/config.ts), every cold start, after a deploy that went through.
 * @param {Set<string>} enabled
 * @param {Record<string, unknown>} values
 */
function requireChannelParams(enabled, values, manifests = channelManifests()) {
  const missing = channelParams(manifests).filter(
    (param) => param.required && enabled.has(param.channel) && String(values[param.name] ?? "").trim() === "",
  );
  if (missing.length === 0) return;
  throw new Error(
    missing
      .map(
        (param) =>
          `params.${param.name} is required while its channel is on (${param.channel}: --param="${param.name}=<value>")`,
      )
      .join("; "),
  );
}

module.exports = { channelManifests, channelParams, requireChannelParams };
