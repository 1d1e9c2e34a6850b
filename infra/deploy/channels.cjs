/**
 * The channels, as the deployment reads them at package time: every folder of lib/channels that holds a
 * manifest.json (its name, secrets and which functions read each, its webhook function). The TypeScript reads
 * the same files through each channel's spec (lib/channels/<name>/<name>-spec.ts); test/unit/channels/
 * channel-list.test.ts holds the two to the same channels. Plain JSON, so CommonJS needs no TypeScript
 * loader at package time.
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

module.exports = { channelManifests };
